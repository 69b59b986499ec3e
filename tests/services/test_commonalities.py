"""Korean 공통점 / 차이점 questions: the shape, and the answer that leads with what the two
subjects share (not the sentence relating them), each subject's sentence cited — over our
fixture documents (tests/fixtures/ko_company)."""

from __future__ import annotations

from planrag.services.commonalities import words
from planrag.services.extractive import Extractor
from planrag.text.question_shapes import Shared, shared
from tests.services.ko_passages import passages


def test_korean_common_and_difference_shapes() -> None:
    assert shared("한빛로보틱스와 누리테크의 공통점은?") == Shared(("한빛로보틱스", "누리테크"))
    assert shared("윤서연과 오세영은 어떤 점이 같나?") == Shared(("윤서연", "오세영"))
    assert shared("한빛로보틱스 대표와 누리테크 대표의 공통점은?") == Shared(
        ("한빛로보틱스 대표", "누리테크 대표")
    )
    assert shared("최민과 최민호의 차이점은?") == Shared(("최민", "최민호"), differ=True)
    for other in (
        "김도윤과 이서준은 같은 대학교를 졸업했나요?",  # a verdict, not a likeness
        "한빛로보틱스와 푸른벤처스 중 어느 회사가 먼저 설립되었나?",
        "한빛로보틱스의 대표는 누구인가?",
    ):
        assert shared(other) is None


def test_words_are_read_up_to_their_particle() -> None:
    assert words("김도윤 대표는 한결대학교 기계공학과를 졸업했다.") == [
        "김도윤",
        "대표",
        "한결대학교",
        "기계공학과",
        "졸업",
    ]


def test_what_two_companies_share_is_not_their_partnership() -> None:
    # nuritech.md holds the sentence naming both ("… 누리테크와 물류 자동화 파트너십을 맺었다"):
    # it says how they relate; what they share is what each is.
    extractor = Extractor()
    ps = passages("nuritech.md", "hanbit_company.md", "investment.md")
    answer = extractor.read("한빛로보틱스와 누리테크의 공통점은?", ps).text()
    assert answer.startswith("공통점: ") and "물류" in answer.split(" — ")[0]
    assert "파트너십" not in answer
    assert "[1]" in answer and "[2]" in answer  # each subject's sentence cited


def test_people_share_a_university_and_a_description_resolves_to_its_person() -> None:
    extractor = Extractor()
    ps = passages("hanbit_company.md", "nuritech.md", "people_profiles.md")
    for question in (
        "김도윤과 이서준의 공통점은 무엇인가?",
        "한빛로보틱스 대표와 누리테크 대표의 공통점은?",
    ):
        answer = extractor.read(question, ps).text()
        assert answer.startswith("공통점: ") and "한결대학교" in answer.split("—")[0]
        assert "김도윤 대표는 한결대학교" in answer and "이서준 대표는 한결대학교" in answer


def test_a_difference_gives_each_subjects_own_value() -> None:
    # "최민" is not "최민호" (org_chart.md says they are different people)
    extractor = Extractor()
    ps = passages("org_chart.md", "nuribot_products.md")
    answer = extractor.read("최민과 최민호의 차이점은?", ps).text()
    assert answer.startswith("차이점 — 최민 연구원은 소프트웨어팀")
    assert "최민호" in answer.split("[1]", 1)[1]
