"""A test module without tests."""
