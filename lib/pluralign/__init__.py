"""pluralign: reward models and disagreeing human preferences."""
__version__ = "0.1.0"
