"""nanlint: find and fix where()/select branches that leak NaN gradients."""

__version__ = "0.1.0"
