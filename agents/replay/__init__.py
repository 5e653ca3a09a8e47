"""Stored runs again: rerunning one (``rerun``) with the tool outputs it got before (``tool_cache``, ``tool_codec``)
under the registry it was made with (``run_registry``), and what differs between two runs (``diff``)."""
