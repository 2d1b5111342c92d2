def test_a_raw_sklearn_pipeline_is_accepted_by_a_relation_directly():
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    from mtlib import relations as R
    from mtlib.relations import transformations as T

    texts = ["a good film", "a great film", "a bad film", "an awful film", "good fun", "bad mess"]
    pipe = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(texts, [1, 1, 0, 0, 1, 0])
    res = R.PairwiseSystematicity("casing", T.Casing("upper")).evaluate(texts, pipe, n_boot=20)
    assert res.cases > 0 and 0.0 <= res.rate <= 1.0
