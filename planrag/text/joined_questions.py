"""Two Korean questions asked as one: "누리테크 대표는 누구고 전에 어디서 일했어?".

A question word, then a clause joined by a connective ending (-고, -며), then a second question
word: each is its own question, and the answer should answer both. `joined_questions` gives the
two parts as Kiwi reads them; the second part is given the first part's topic, which it leaves
unsaid ("누리테크 대표는" … "전에 어디서 일했어?" → "누리테크 대표는 전에 어디서 일했어?").
"""

from __future__ import annotations

from dataclasses import dataclass

from kiwipiepy import Token

from planrag.text.korean import get_kiwi

__all__ = ["JoinedQuestions", "joined_questions"]

# Question words as Kiwi tags them: 누구/어디/무엇/뭐 (NP), 언제/왜/어떻게 (MAG), 몇/어느/무슨
# (MM), 얼마 (NNG).
_QUESTION_WORDS = {
    "NP": frozenset(("누구", "어디", "무엇", "뭐", "무엇인가")),
    "MAG": frozenset(("언제", "왜", "어떻게")),
    "MM": frozenset(("몇", "어느", "무슨", "어떤")),
    "NNG": frozenset(("얼마",)),
}
_CONNECTIVES = frozenset(("고", "며", "으며"))  # clause-joining endings (EC)
_TOPIC_PARTICLES = frozenset(("JX", "JKS"))  # 은/는, 이/가


@dataclass(frozen=True)
class JoinedQuestions:
    first: str  # "누리테크 대표는 누구"
    second: str  # "누리테크 대표는 전에 어디서 일했어?"
    topic: str  # what the second part left unsaid and was given ("누리테크 대표는"; "" if none)
    asks_who: bool  # the first part asks who: its answer is the second part's subject
    rest: str = ""  # the second part as asked, without the topic given it ("전에 어디서 일했어?")


def _is_question_word(token: Token) -> bool:
    return token.form in _QUESTION_WORDS.get(token.tag, frozenset())


def joined_questions(question: str) -> JoinedQuestions | None:
    """The two questions of a Korean question joining them with -고/-며, or None (one question,
    or a question word that is not followed by a second clause asking something)."""
    tokens = get_kiwi().tokenize(question)
    asked = [i for i, t in enumerate(tokens) if _is_question_word(t)]
    if len(asked) < 2:
        return None
    first = asked[0]
    joint = next(
        (
            i
            for i in range(first + 1, asked[1])
            if tokens[i].tag == "EC"
            and tokens[i].form in _CONNECTIVES
            and tokens[i + 1].tag != "VX"  # "두고 있으며": an auxiliary, one clause
        ),
        None,
    )
    if joint is None:
        return None
    head = question[: tokens[joint].start].strip()
    rest = question[tokens[joint].start + tokens[joint].len :].strip()
    if not head or not rest:
        return None
    who = tokens[first].form == "누구"
    topic = _topic(question, tokens, first, who)
    return JoinedQuestions(head, f"{topic} {rest}".strip(), topic, who, rest)


def _topic(question: str, tokens: list[Token], first: int, who: bool) -> str:
    """What the first part is about, which the second leaves unsaid: the words before its
    topic or subject particle. When the first part asks for that topic's attribute ("누리봇 S2
    가격은 얼마고": the particle, then the question word as its complement), the attribute's
    noun is left out, the second part asks about the subject (누리봇 S2); a "누구" part's
    topic is the person asked for, and is kept whole ("누리테크 대표는 누구고")."""
    particles = [i for i in range(first) if tokens[i].tag in _TOPIC_PARTICLES]
    if not particles:
        return ""
    end = particles[0]
    if not who and end == first - 1 and end >= 2 and tokens[end - 1].tag.startswith("NN"):
        end -= 1  # the attribute asked ("가격") is not the second part's subject
    if end != particles[0]:
        return question[: tokens[end].start].strip()
    return question[: tokens[end].start + tokens[end].len].strip()
