"""Key information from receipts, invoices and similar documents: the total, the date, the issuer's name and
address, and the value printed beside any label, each exactly as printed with the box it came from.

``read_field(image, "total")`` returns a ``FieldAnswer`` (``value``, ``boxes``, ``confidence``, ``how``, or
``missing``; ``summary()``, ``to_dict()``, ``annotated``). ``read_document(image)`` reads the page once (OCR is
cached per image) so that further fields cost almost nothing.
"""

from vision_tools.documents.reading import FIELDS, DocumentReading, read_document, read_field
from vision_tools.documents.result import Candidate, FieldAnswer

__all__ = ["FIELDS", "Candidate", "DocumentReading", "FieldAnswer", "read_document", "read_field"]
