"""The embedded Gemma's conversion parses its GGUF once (pluralign.llm.hf._gguf_read_once): transformers asks for a
reader of the same file for the tokenizer, the config and the tensors."""

import gguf
import numpy as np

from pluralign.llm.hf import _gguf_read_once


def _tiny_gguf(path):
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_string("general.name", "tiny")
    w.add_tensor("t", np.arange(6, dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def test_one_reader_per_file_inside_the_block_and_the_library_restored_after(tmp_path):
    a, b = _tiny_gguf(tmp_path / "a.gguf"), _tiny_gguf(tmp_path / "b.gguf")
    original = gguf.GGUFReader
    with _gguf_read_once():
        first = gguf.GGUFReader(a)
        assert gguf.GGUFReader(str(a)) is first  # the same file by another spelling: the same reader
        assert gguf.GGUFReader(b) is not first
        assert np.array_equal(first.tensors[0].data, np.arange(6, dtype=np.float32))
    assert gguf.GGUFReader is original and gguf.GGUFReader(a) is not first


def test_the_library_is_restored_when_the_block_fails(tmp_path):
    original = gguf.GGUFReader
    try:
        with _gguf_read_once():
            raise RuntimeError("conversion failed")
    except RuntimeError:
        pass
    assert gguf.GGUFReader is original
