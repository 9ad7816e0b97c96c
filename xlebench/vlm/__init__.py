"""Vision-language models behind one interface, cached like every model call."""
