"""What nanlint knows about frameworks, as data: singular ops, selects and gradient-safe helpers."""
