"""Where the tests find the repository and its fixtures, wherever the test module sits."""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
FIXTURES = TESTS / "fixtures"
SAMPLES = ROOT / "samples"
