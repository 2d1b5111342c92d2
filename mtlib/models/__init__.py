"""Models: registry, offline resolution, one adapter per family, and the classifier factory.

One name (``"minilm"``, ``"vader"``, ``"roberta-large-mnli"``, a hub id or a
local path) resolves to weights on disk (:mod:`~mtlib.models.weights.resolve`) and
loads through its family's adapter (:mod:`~mtlib.models.adapters`). Every
loaded model is a :class:`Model` with the operations a notebook needs, each
batched, length-sorted and cached on disk (one model call per unique input,
ever):

- ``embed(texts)``: sentence embeddings, shape ``(n, d)``;
- ``classify(texts, text_pairs=None)``: class probabilities ``(n, k)`` with
  named labels (``model.labels``); ``score`` and ``log_odds`` of one label;
- ``label_logprobs(plan, texts, text_pairs=None)`` (causal LMs such as ``smollm2-135m``): each label's
  verbaliser log-probability after a prompt, batched with the prompt's shared prefix computed once;
- ``features(texts, text_pairs=None, layer=..., spans=...)`` (transformers):
  from one forward pass, the pooled last layer, the class probabilities and,
  for each requested substring, the mean of its word pieces' hidden states.

:func:`classifier` turns any model into a classifier for a task, with its
own head (``native``), a head on frozen features (``head``), by training
the model itself (``finetune``) or, for a causal LM, by prompting (``prompt``).
"""

# The adapters register the model families on import, and resolution asks them which family a folder
# is: every import of mtlib.models (or of any module in it) registers them first.
from mtlib.models import adapters as _families  # noqa: F401
from mtlib.utils.faces import ALL, Face

_face = Face(
    __name__,
    {
        "weights": [],
        "inference": [],
        "training": [],
        "weights.registry": ALL,
        "weights.resolve": ALL,
        "weights.identity": ALL,
        "inference.spans": ALL,
        "inference.prompts": ALL,
        "inference.oov": ALL,
        "base": ALL,
        "capabilities": ALL,
        # every name of the adapters sub-package, as its own face gives them (read from it, not written again)
        "adapters": list(_families.__all__),
        "loading": ALL,
        "training.baseline": ALL,
        "training.heads": ALL,
        "training.settings": ALL,
        "training.resolved": ALL,
        "training.native": ALL,
        "training.prompt": ALL,
        "training.frozen": ALL,
        "training.finetune": ALL,
        "training.siamese": ALL,
        "training.pair_matrix": ALL,
        "factory": ALL,
        "catalog": ALL,
    },
    moved={"split_name": "mtlib.models:parse_model_name", "folder_kind": "mtlib.models:folder_family"},
)
__all__, __getattr__, __dir__ = _face.names, _face.getattr, _face.dir
