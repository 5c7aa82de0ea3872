"""Rules core of France Fights On: pure Python + numpy, no gymnasium, no torch."""
