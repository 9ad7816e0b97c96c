"""What a recipe is and reads: its declaration and the open registry, the context it builds
from, the item contract, the records' periods, configured and derived recipes."""
