"""A shop with a cart and prices."""
