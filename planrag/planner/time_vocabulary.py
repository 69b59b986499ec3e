"""The words and patterns of time expressions, shared by the rules (`time_rules`, `time_phrases`):
number words (Korean native and English), month names, and the year and part-of-month patterns."""

from __future__ import annotations

import re
from datetime import date

NATIVE_NUMBERS = {
    "한": 1, "하나": 1, "일": 1, "두": 2, "둘": 2, "세": 3, "셋": 3, "네": 4, "넷": 4, "다섯": 5,
    "여섯": 6, "일곱": 7, "여덟": 8, "아홉": 9, "열": 10, "a": 1, "an": 1, "one": 1, "two": 2,
    "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "fourteen": 14, "thirty": 30,
}  # fmt: skip
NUM = r"(?P<n>\d{1,3}|한|두|세|네|다섯|여섯|일곱|여덟|아홉|열|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fourteen|thirty)"  # noqa: E501

MONTHS_EN = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9,
    "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12,
    "dec": 12,
}  # fmt: skip
MON = r"(?P<mon>january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"  # noqa: E501

YEAR_KO = (
    # A two-digit year only where it cannot be a duration ("10년 넘게"): "23년도", "24년 3월".
    r"(?:(?P<y>\d{4})\s*년(?:도)?(?!대)|(?<!\d)(?P<yy>\d{2})\s*년(?:도|(?=\s*(?:\d{1,2}\s*월|상반기|"
    r"하반기|[1-4]\s*분기)))"
    r"|(?P<yrel>올해|금년|작년|지난\s*해|전년|재작년|내년))"
)
PART_KO = r"(?P<part>초순|중순|하순|초|중|말)(?![가-힣])|(?P<part2>초순|중순|하순|초|말)(?=[에의부까쯤경은는])"  # noqa: E501
YEAR_EN = r"(?P<y>(?:19|20)\d{2})"
PART_EN = (
    r"(?P<part>early|mid|late|(?:the\s+)?(?:end|beginning|start|middle)\s+of|(?:in\s+)?the\s+"
    r"(?:first|second|last)\s+third\s+of)"
)


def numbered(name: str) -> str:
    """The number pattern under another group name (one regex may not reuse a name)."""
    return NUM.replace("?P<n>", f"?P<{name}>")


def number(text: str) -> int:
    return int(text) if text.isdigit() else NATIVE_NUMBERS[text.lower()]


def year_of(m: re.Match[str], today: date) -> int | None:
    groups = m.groupdict()
    if groups.get("y"):
        return int(groups["y"])
    if groups.get("yy"):  # "24년" is 2024
        return 2000 + int(groups["yy"])
    rel = (groups.get("yrel") or "").replace(" ", "")
    return {
        "올해": today.year,
        "금년": today.year,
        "작년": today.year - 1,
        "지난해": today.year - 1,
        "전년": today.year - 1,
        "재작년": today.year - 2,
        "내년": today.year + 1,
    }.get(rel)
