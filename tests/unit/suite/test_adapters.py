def test_a_relation_takes_a_wrapped_sklearn_pipeline_and_says_to_wrap_a_raw_one():
    # relations know only the scorer protocol (issue 34): the models wing adapts the pipeline
    import pytest
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    from mtlib import relations as R
    from mtlib.models.adapters import wrap
    from mtlib.relations import transformations as T

    texts = ["a good film", "a great film", "a bad film", "an awful film", "good fun", "bad mess"]
    pipe = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(texts, [1, 1, 0, 0, 1, 0])
    rel = R.PairwiseSystematicity("casing", T.Casing("upper"))
    res = rel.evaluate(texts, wrap(pipe), n_boot=20)
    assert res.cases > 0 and 0.0 <= res.rate <= 1.0
    with pytest.raises(R.MtlibInputError, match=r"got Pipeline .*wrap it first: mtlib.models.adapters.wrap\(obj\)"):
        rel.evaluate(texts, pipe, n_boot=20)
    with pytest.raises(R.MtlibInputError, match=r"mtlib.models.load\('vader'\)"):
        rel.evaluate(texts, "vader", n_boot=20)
