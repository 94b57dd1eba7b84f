"""pluralign: reward models and disagreeing human preferences."""
import warnings as _warnings

__version__ = "0.1.0"

# tqdm.auto (imported by huggingface_hub, transformers, datasets) warns "IProgress not found" in a Jupyter
# kernel without ipywidgets and falls back to text bars; the fallback is what we want, the warning is noise
# in every executed page. Import it once here with that one message silenced.
with _warnings.catch_warnings():
    _warnings.filterwarnings("ignore", message="IProgress not found")
    import tqdm.auto  # noqa: F401
