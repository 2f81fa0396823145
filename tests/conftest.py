import sys
from pathlib import Path

# Test helpers (kafka_reference) are imported as plain modules.
sys.path.insert(0, str(Path(__file__).parent))
