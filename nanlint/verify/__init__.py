"""Verification: evaluate original and fixed code on probe points in a separate worker process."""
