"""OCR skill: reading printed text, answering with a document field, a span of the reading, or the transcription."""
