"""What the extractive reader found: the lead sentence, its answer span and its support, and the
short headline an answer may open with ("Yes — …", "Greyia — …", "Moscow State University — …")."""

from __future__ import annotations

from pydantic import BaseModel, Field

from planrag.services.answers import Passage
from planrag.text.answer_types import AnswerType


class ReadSentence(BaseModel):
    text: str
    n: int = Field(description="the passage's number, cited as [n]")
    score: float


class Reading(BaseModel):
    """What the reader found: the lead sentence answers, `span` is the answer inside it."""

    question: str
    answer_type: AnswerType
    lead: ReadSentence | None = None
    passage: Passage | None = None
    span: str | None = None
    confidence: float = 0.0
    support: list[ReadSentence] = Field(default_factory=list)
    evidence: list[int] = Field(default_factory=list, description="passages passing the check")
    headline: str | None = Field(
        default=None,
        description='what the answer opens with before its sentence: "Yes", "예", a compared '
        "alternative's name, or the short answer the sentence holds",
    )

    absent: str | None = Field(
        default=None,
        description='the sentence saying what the documents lack ("화성 지사는 문서에 없습니다."); '
        "the sentences after it are what they hold",
    )

    then: Reading | None = Field(
        default=None,
        description="the reading of a second question asked in the same breath "
        '("누리테크 대표는 누구고 전에 어디서 일했어?"), answered after this one',
    )

    @property
    def found(self) -> bool:
        return self.lead is not None

    def text(self) -> str:
        """The answer: the lead sentence and its support, each cited; "" when nothing found."""
        if self.lead is None:
            return ""
        cited = " ".join(f"{s.text} [{s.n}]" for s in [self.lead, *self.support])
        if self.absent:
            text = f"{self.absent} {cited}"
        else:
            text = f"{self.headline} — {cited}" if self.headline else cited
        return f"{text} {self.then.text()}" if self.then is not None else text
