"""Page groups: claims that share a page are one unit for splits, folds and risk bounds."""

from mermaid_verifier.evaluation.datasets import page_disjoint_split, page_groups, result_anchor_pages


def test_claims_sharing_any_page_join_one_group_named_by_its_first_page():
    anchors = {
        "1": {"Soul_Food"},
        "2": {"Soul_Food", "Babyface"},
        "3": {"Babyface", "Tracey_Edmonds"},
        "4": {"Mount_Everest"},
        "5": set(),
    }
    groups = page_groups(anchors)
    assert groups["1"] == groups["2"] == groups["3"] == "Babyface"  # joined through 2, named alphabetically first
    assert groups["4"] == "Mount_Everest" and groups["5"] == "claim:5"


def test_the_split_never_separates_a_group():
    anchors = {str(i): {f"page{i % 7}", f"page{(i + 1) % 7}"} if i % 3 else {f"solo{i}"} for i in range(60)}
    split, groups = page_disjoint_split(anchors), page_groups(anchors)
    for claim_id, group in groups.items():
        assert len({split[other] for other, g in groups.items() if g == group}) == 1, claim_id


def test_result_rows_are_anchored_on_gold_pages_else_the_first_retrieved_page():
    supported = {
        "gold_evidence": [[["Stanley_Kubrick", 1]], [["Stanley_Kubrick", 2], ["The_Shining", 0]]],
        "evidence": [{"page": "Elsewhere"}],
    }
    assert result_anchor_pages(supported) == {"Stanley_Kubrick", "The_Shining"}
    not_enough_info = {"gold_evidence": [], "evidence": [{"page": None}, {"page": "Mount_Everest"}, {"page": "K2"}]}
    assert result_anchor_pages(not_enough_info) == {"Mount_Everest"}
    assert result_anchor_pages({"evidence": []}) == set()
