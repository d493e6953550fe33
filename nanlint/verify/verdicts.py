"""The words of a verification's outcome, light enough for the command line to import at start-up."""

VERIFIED, FAILED, UNVERIFIABLE = "verified", "failed", "unverifiable"
DEFAULT_TIMEOUT_S = 300


class BackendMissing(Exception):
    """The framework needed to verify a finding is not installed; the message names the extra."""
