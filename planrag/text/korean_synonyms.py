"""The everyday words users ask with for the words documents write, in Korean.

Users ask "월급날 언제야?", "포닥 누구예요?", "DK-200 무게 얼마야?", "강변분관 쉬는 날 언제야?";
documents write 급여일, 박사후연구원, 중량, 휴관일. Kiwi reads each side right, and the words
still never meet: the evidence check said "not found" with the answering passage ranked first,
and the reader led with a sentence sharing other words. Here a question's term is credited to a
text that writes it another way (`add_synonyms_held`), so both the evidence check and the reader
see the term held:

- `GROUPS`: words that name the same thing in a question about a document (월급 · 급여 · 봉급,
  포닥 · 박사후연구원, 무게 · 중량, 공짜 · 무료). A member of one syllable is never matched
  alone (폰 would match inside 폰트); words that also name other things (이사: a director and a
  move) are left out.
- A compound the question writes as one word that Kiwi keeps whole, ending in a head noun
  (`HEADS`: 날, 비, 료, 세, 값, 역): 월급날 = 월급 + 날, each part written any of its ways
  (급여일, 월급 지급일); 택배비 → 배송비; a day's compound (월급날) is held where its stem is
  written (급여는 매월 25일에 지급). A station is named, not described: 지하철역 is held where
  the text names the line (지하철) and a word ending in 역 (동부역).
- Phrases a question asks with that hold no noun of the document's (`PHRASES`): "쉬는 날" is a
  휴관일 or 휴무, "하루권" a 1일권, "문 여는 시간" the 운영 시간; the phrase's noun is credited.

The lists are general Korean usage written for this module, not read off any knowledge base:
a synonym a document does not use costs nothing, one it uses turns a "not found" into its answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from itertools import product

__all__ = ["GROUPS", "HEADS", "PHRASES", "add_synonyms_held", "synonym_patterns"]

# One group per line: the words name the same thing when a user asks about a document; words
# after ">" are ways a document writes the words before it, not the other way round (a question
# about the 운영 of a service is not about its 영업).
_GROUPS = """
월급 급여 봉급 임금 급료
보너스 상여금 성과급 인센티브
퇴직금 퇴직급여
야근 초과근무 시간외근무 연장근무
야근수당 시간외수당 초과근무수당 연장근무수당
재택 재택근무 원격근무
연차 연차휴가 유급휴가
알바 아르바이트 파트타임 시간제근로
직원 임직원 사원 종업원 근로자
신입 신입사원 신규입사자
사장 사장님 > 대표 대표이사 최고경영자 CEO
창업자 창업주 창립자 설립자
포닥 박사후연구원 박사후과정 포스트닥
랩 연구실
교사 선생님 강사
의사 전문의 의료진
침대 병상
응급실 응급의료센터
검진 건강검진 종합검진
약 > 의약품
책 도서
회원증 회원카드 이용증
무게 중량
크기 규격 사이즈 치수
칼로리 열량
유통기한 소비기한
가격 값 판매가 정가 소비자가격
요금 이용료 사용료 이용요금
공짜 무료 무상
할인 세일 감면 우대
쿠폰 할인권
포인트 적립금 마일리지
부가세 부가가치세 VAT
환불 환급 반환
위약금 해지수수료 해약금 위약수수료
택배 배송 배달
고객센터 콜센터 상담센터 고객상담실 고객지원센터
AS A/S 애프터서비스 사후서비스
폰 휴대폰 휴대전화 핸드폰 스마트폰
전화번호 연락처
와이파이 무선인터넷 wifi wi-fi
홈페이지 웹사이트 누리집
앱 어플 애플리케이션 어플리케이션
비밀번호 비번 패스워드
아이디 계정
먹통 장애 서비스중단 접속장애
점검 유지보수 정비
담당자 책임자
개발자 엔지니어 프로그래머
매출 매출액
근처 인근 주변 부근
지하철 전철 도시철도
주소 소재지
영업 > 운영
오픈 > 개장 개점 개관 개원 개업
가게 매장 점포
지점 분점
입장료 관람료
티켓 입장권 승차권
어린이 아동 소아
노인 어르신 경로
반려동물 애완동물 반려견 펫
헬스장 피트니스센터 체력단련실 헬스클럽
사물함 락커 보관함
탈의실 락커룸
흡연실 흡연구역 흡연부스
엘리베이터 승강기
에어컨 냉방기
히터 난방기
분리수거 분리배출 재활용
음식물쓰레기 음식물류폐기물
관리실 관리사무소 관리소
기숙사 생활관 학생생활관
등록금 수업료 학비 교육비
수업 강의
졸업 수료
자격증 자격
축제 페스티벌
공연 콘서트
전기차 전기자동차
충전소 충전기 충전시설
회의실 미팅룸
휴게실 라운지
밥값 점심값 식대 식비 중식비 중식대
점심 > 중식
출장비 출장여비 여비
리드 > 주도 주관
홀딩 일시정지 > 휴회 정지
병원비 의료비 치료비 진료비
상 > 어워드 수상 금상 은상 동상 최우수상 우수상 장려상
"""
GROUPS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = tuple(
    (tuple(keys.split()), tuple(written.split()))
    for keys, _, written in (line.partition(">") for line in _GROUPS.strip().splitlines())
)

# Head nouns a compound ends in, and the ways a document writes them there.
HEADS: Mapping[str, tuple[str, ...]] = {
    "날": ("날", "일", "날짜", "일자"),
    "일": ("일", "날", "날짜", "일자"),
    "비": ("비", "요금", "료", "비용"),
    "료": ("료", "비", "요금", "비용"),
    "세": ("세", "요금", "료"),
    "값": ("값", "비", "대", "요금", "가격", "비용"),
    "장": ("장",),  # the head of a place: 관리소장 is the 관리사무소장
    "역": (),  # a station: the line's name and a word ending in 역 (its name)
}
# Heads whose compound is the stem's day: a text writing the stem holds it (월급날: "급여는 매월
# 25일에 지급한다").
_DAY_HEADS = frozenset({"날", "일"})
_STATION = r"[가-힣]역(?:[은는이가을를에의도과와로]|에서|까지|으로|$|[^가-힣])"

# (a phrase of the question, the noun of it credited, how documents write it)
PHRASES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        r"(?:쉬는|노는|문\s?닫는|휴무인?)\s?날",
        "날",
        ("휴일", "휴무", "휴관", "휴진", "휴점", "쉰다", "쉽니다"),
    ),
    (r"하루\s?(?:권|이용권|짜리|치)", "하루", ("1일권", "1일 이용권", "일일권", "1일 정기권")),
    (r"한\s?달\s?(?:권|이용권|회원권|짜리|치)", "달", ("1개월", "한 달", "월 정기권", "월정액")),
    (r"일주일\s?(?:권|이용권|짜리|치)", "일주일", ("7일권", "1주일권", "7일 이용권", "1주 이용권")),
    (r"(?:회사|직장)에\s?(?:들어|입사)", "회사", ("입사", "합류")),
    (r"물\s?(?:이\s?)?안\s?나오", "물", ("단수",)),
    (r"비\s?(?:가\s?)?(?:오면|올\s?때|오는\s?날|내리면)", "비", ("우천", "비가")),
    (r"가게\s?(?:를\s?)?(?:차리|내려|열려)", "가게", ("창업", "가맹", "개업", "개점")),
    (r"(?:애|아이|애기|아기)(?:를|가)?\s?잃어버", "애", ("미아",)),
    (
        r"문\s?(?:여는|열고|닫는)\s?시간",
        "시간",
        ("운영 시간", "영업시간", "영업 시간", "운영시간", "개방 시간"),
    ),
)


def _surface(word: str) -> str:
    """A word as a pattern: Latin case-free and whole, Hangul with optional spaces between
    syllables (박사후 연구원)."""
    word = word.replace(" ", "")
    if re.fullmatch(r"[A-Za-z/\-]+", word):
        return rf"(?i:(?<![A-Za-z]){re.escape(word)}(?![A-Za-z]))"
    return r"\s?".join(re.escape(c) for c in word)


def _union(words: Iterable[str]) -> str:
    kept = sorted({w for w in words if len(w) >= 2 or not _is_hangul(w)}, key=len, reverse=True)
    return "(?:" + "|".join(_surface(w) for w in kept) + ")" if kept else ""


def _is_hangul(word: str) -> bool:
    return bool(word) and all("가" <= c <= "힣" for c in word)


def _group(word: str) -> tuple[str, ...]:
    """The word and every way a document may write it (empty when no group has it)."""
    folded = word.casefold()
    for keys, written in GROUPS:
        if any(key.casefold() == folded for key in keys):
            return (*keys, *written)
    return ()


Alternative = tuple[re.Pattern[str], ...]  # all must match a text for it to hold the term


@lru_cache(maxsize=4096)
def _alternatives(term: str) -> tuple[Alternative, ...]:
    """How else a text may write the question's term."""
    group = _group(term)
    if group:
        pattern = _union(w for w in group if w.casefold() != term.casefold())
        return ((re.compile(pattern),),) if pattern else ()
    if not _is_hangul(term) or len(term) < 3 or term[-1] not in HEADS:
        return ()
    stem, head = term[:-1], term[-1]
    stems = _group(stem) or (stem,)
    if head == "역":
        return ((re.compile(_union(stems)), re.compile(_STATION)),) if len(stem) >= 2 else ()
    if head in _DAY_HEADS:
        return ((re.compile(_union(stems)),),)
    joined = [f"{s}{h}" for s, h in product(stems, HEADS[head])]
    spaced = [rf"{_union([s])}\s?{_surface(h)}" for s, h in product(stems, HEADS[head])]
    pieces = [p for p in (_union(w for w in joined if w != term), *spaced) if p]
    return ((re.compile("|".join(pieces)),),)


@lru_cache(maxsize=1024)
def _phrases(question: str) -> tuple[tuple[str, Alternative], ...]:
    found = []
    for phrase, noun, written in PHRASES:
        if re.search(phrase, question):
            found.append((noun, (re.compile("|".join(_surface(w.strip()) for w in written)),)))
    return tuple(found)


def synonym_patterns(question: str, terms: Iterable[str]) -> dict[str, tuple[Alternative, ...]]:
    """The question's terms a text may write another way, and those ways (Korean questions
    only: an English question's words are stemmed and matched as they are)."""
    if not re.search("[가-힣]", question):
        return {}
    found: dict[str, tuple[Alternative, ...]] = {}
    for term in terms:
        alternatives = _alternatives(term)
        if alternatives:
            found[term] = alternatives
    for noun, alternative in _phrases(question):
        if noun in terms:
            found[noun] = (*found.get(noun, ()), alternative)
    return found


def add_synonyms_held(
    patterns: Mapping[str, tuple[Alternative, ...]],
    texts: Sequence[str],
    term_sets: Sequence[set[str]],
) -> None:
    """Add each question term to the term sets of the texts writing it another way."""
    if not patterns:
        return
    for text, terms in zip(texts, term_sets, strict=True):
        for term, alternatives in patterns.items():
            if term not in terms and any(all(p.search(text) for p in alt) for alt in alternatives):
                terms.add(term)
