"""Reading: summary text to items, one pipeline (see ``reader.py``)."""
