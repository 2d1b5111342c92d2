"""Shared fixtures: an isolated cache, offline hub, and tiny models built from a config.

No test downloads anything: the tiny BERT (WordPiece) and RoBERTa (byte-level
BPE) models below are built from a config with tokenizers trained on a few
sentences, saved to a temporary folder and loaded through the same registry
(``mtlib.models.load(path)``) a notebook uses.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mtrun._startup import skip_unused_imports

# jsonschema's RFC 3987 grammar, built when nbformat is imported (about 2 s of CPU a process; no test uses it):
# each pytest worker imports nbformat while collecting, as the runner's processes do, which skip it too
skip_unused_imports()

# Two pytest workers share the 2-core machine (`make test` runs `-n 2`), and each notebook kernel they start
# inherits this: one thread per process, instead of torch/BLAS pools spinning against each other.
for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

ROOT = Path(__file__).resolve().parents[1]
# Every process a test starts (the runner, its papermill processes, a notebook's kernel, a script) imports this
# checkout's mtlib and the tool beside it (tools/mtrun), whatever is installed.
_PATH = [str(ROOT), str(ROOT / "tools" / "mtrun"), *os.environ.get("PYTHONPATH", "").split(os.pathsep)]
# each folder once: tests/warm.py compares a command's PYTHONPATH with this one
os.environ["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(p for p in _PATH if p))

SENTENCES = [
    "There was no cherry tree in the garden.",
    "There was no tree in the garden.",
    "Some dogs bark at night and some poodles sleep.",
    "Every student read the story about the king.",
    "A warm, funny film with a terrific cast.",
    "The plot is thin, but the acting is superb.",
    "I did not see any apple or fruit on the table.",
    "Nobody bought the sports car or the car.",
]


@pytest.fixture(autouse=True, scope="session")
def _isolated_environment(tmp_path_factory):
    """Every test session gets its own cache and works offline, headless, quietly."""
    cache = tmp_path_factory.mktemp("mtlib-cache")
    old = {k: os.environ.get(k) for k in ("MTLIB_CACHE", "HF_HUB_OFFLINE", "MPLBACKEND", "MTLIB_PROGRESS")}
    os.environ["MTLIB_CACHE"] = os.environ.get("MTLIB_TEST_CACHE", str(cache))
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["MPLBACKEND"] = "Agg"
    os.environ["MTLIB_PROGRESS"] = "0"
    yield
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="session")
def smoke_runs(request, tmp_path_factory):
    """Smoke runs of the notebooks, once per session (tests/smoke_runs.py); paired when determinism is tested
    (`make test-slow`: under `make test` the fast tests of test_determinism.py need no run `b`)."""
    from tests.smoke_runs import SmokeRuns

    pairs = any(  # a determinism test that reads the runs is selected (make test-slow), not merely its module
        getattr(getattr(item, "module", None), "__name__", "").endswith("test_determinism")
        and "smoke_runs" in getattr(item, "fixturenames", ())
        for item in request.session.items
    )
    if hasattr(request.config, "workerinput"):  # pytest -n 2: both workers share the runs (made once, under locks)
        base = tmp_path_factory.getbasetemp().parent / "smoke-runs"  # the session's basetemp, above popen-gwN
    else:
        base = tmp_path_factory.mktemp("smoke")
    return SmokeRuns(base, pairs=pairs)


def pytest_itemcollected(item):
    """Each notebook's readers of the smoke runs in one more xdist group, ``smoke-NN``: the notebooks spread
    over both workers under ``-n 2 --dist loadgroup``, and the tests of one notebook run together, on the
    worker that makes its run (a reader on the other worker waits for the run, tests/smoke_runs.py)."""
    path = getattr(getattr(item, "callspec", None), "params", {}).get("path")
    if "smoke_runs" in getattr(item, "fixturenames", ()) and isinstance(path, Path) and path.suffix == ".ipynb":
        item.add_marker(pytest.mark.xdist_group(f"smoke-{path.stem[:2]}"))


def _wordpiece_tokenizer(sentences):
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import BertTokenizerFast

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok.train_from_iterator(sentences, trainers.WordPieceTrainer(vocab_size=120, special_tokens=specials))
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
    )
    tok.decoder = decoders.WordPiece()
    return BertTokenizerFast(
        tokenizer_object=tok,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
        model_max_length=128,
    )


def _bpe_tokenizer(sentences):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import RobertaTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    tok.train_from_iterator(
        sentences,
        trainers.BpeTrainer(
            vocab_size=300, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
        ),
    )
    tok.post_processor = processors.RobertaProcessing(
        ("</s>", tok.token_to_id("</s>")), ("<s>", tok.token_to_id("<s>")), trim_offsets=True
    )
    tok.decoder = decoders.ByteLevel()
    return RobertaTokenizerFast(
        tokenizer_object=tok,
        bos_token="<s>",
        eos_token="</s>",
        sep_token="</s>",
        cls_token="<s>",
        unk_token="<unk>",
        pad_token="<pad>",
        mask_token="<mask>",
        model_max_length=128,
    )


@pytest.fixture(scope="session")
def tiny_bert_dir(tmp_path_factory) -> Path:
    """A 2-layer BERT encoder with a WordPiece tokenizer, saved as a HF folder."""
    return save_tiny_bert(tmp_path_factory.mktemp("tiny-bert"), _wordpiece_tokenizer(SENTENCES))


def save_tiny_bert(folder: Path, tokenizer) -> Path:
    """A 2-layer BERT encoder (hidden size 32, seeded) for ``tokenizer``'s vocabulary, saved with it in ``folder``."""
    import torch
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
    )
    BertModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_roberta_nli_dir(tmp_path_factory) -> Path:
    """A 2-layer RoBERTa sequence classifier (byte-level BPE) with NLI label names."""
    import torch
    from transformers import RobertaConfig, RobertaForSequenceClassification

    folder = tmp_path_factory.mktemp("tiny-roberta-nli")
    tokenizer = _bpe_tokenizer(SENTENCES)
    torch.manual_seed(0)
    config = RobertaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=130,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        num_labels=3,
        id2label={0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"},
        label2id={"CONTRADICTION": 0, "NEUTRAL": 1, "ENTAILMENT": 2},
    )
    model = RobertaForSequenceClassification(config)
    model.config.architectures = ["RobertaForSequenceClassification"]
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """Under ``-n 2 --dist loadgroup`` (``make test``), refuse to run if xdist did not group the marked tests.

    The Dask cluster is a session fixture shared by the tests of one ``xdist_group``, and each notebook's readers
    of the smoke runs form one group (their runs are made once per session whichever worker asks, but a reader
    spread from its notebook's group would wait for the other worker); if the group suffix is missing from the
    node ids (pytest 9.2 stores them where pytest-xdist 3.8 no longer writes), every worker builds the cluster
    and ``make test`` costs minutes more, silently.
    """
    strays = [i.nodeid for i in items if "smoke_runs" in getattr(i, "fixturenames", ()) and not _in_smoke_group(i)]
    if strays:  # under -n 2 it would land on the other worker, which would make its smoke runs again (minutes)
        raise pytest.UsageError(f"mark these xdist_group('smoke'), as every reader of the smoke runs: {strays}")
    if not (hasattr(config, "workerinput") and config.getvalue("loadgroup")):
        return
    lost = [i.nodeid for i in items if i.get_closest_marker("xdist_group") and "@" not in i.nodeid]
    if lost:
        raise pytest.UsageError(
            f"pytest-xdist did not group {len(lost)} test(s) marked xdist_group (e.g. {lost[0]}): this pytest "
            f"({pytest.__version__}) and pytest-xdist do not work together; install the versions pyproject.toml asks"
        )


def _in_smoke_group(item) -> bool:
    return any((m.args[:1] or [m.kwargs.get("name")])[0] == "smoke" for m in item.iter_markers("xdist_group"))
