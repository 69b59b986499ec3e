"""The words the rule extractor types names by (`planrag.text.named_entities`): Korean
surnames, titles and roles, the endings of organisations, units and events, places, and the
date and model-code patterns."""

from __future__ import annotations

import re

SURNAMES_2 = ("남궁", "황보", "선우", "제갈", "독고", "사공", "서문", "동방")
SURNAMES = frozenset(
    (
        "김",
        "이",
        "박",
        "최",
        "정",
        "강",
        "조",
        "윤",
        "장",
        "임",
        "한",
        "오",
        "서",
        "신",
        "권",
        "황",
        "안",
        "송",
        "류",
        "유",
        "전",
        "홍",
        "고",
        "문",
        "양",
        "손",
        "배",
        "백",
        "허",
        "남",
        "심",
        "노",
        "하",
        "곽",
        "성",
        "차",
        "주",
        "우",
        "구",
        "민",
        "진",
        "나",
        "지",
        "엄",
        "채",
        "원",
        "천",
        "방",
        "공",
        "현",
        "함",
        "변",
        "염",
        "여",
        "추",
        "도",
        "소",
        "석",
        "선",
        "설",
        "마",
        "길",
        "연",
        "위",
        "표",
        "명",
        "기",
        "반",
        "왕",
        "금",
        "옥",
        "육",
        "인",
        "맹",
        "제",
        "모",
        "탁",
        "국",
        "어",
        "은",
        "편",
        "용",
        "예",
        "경",
        "봉",
        "라",
        "피",
        "감",
        "음",
        "빈",
        "태",
    )
)
TITLES = frozenset(
    (
        *("대표", "대표이사", "사장", "회장", "부회장", "부사장", "전무", "상무", "이사", "이사장"),
        *("CTO", "CEO", "CFO", "COO", "교수", "박사", "연구원", "수석연구원", "책임연구원"),
        *("선임연구원", "팀장", "본부장", "소장", "총장", "센터장", "원장", "학장", "부장", "실장"),
        *("과장", "차장", "대리", "씨", "님", "의원", "장관", "기자", "작가", "감독", "변호사"),
        *("엔지니어", "디자이너", "매니저", "창업자", "수석", "위원장", "공동대표", "교수팀"),
        *("책임", "선임", "주임", "파트장", "그룹장"),  # ranks of a Korean company's staff
    )
)
ORG_ENDINGS = (
    *("주식회사", "그룹", "대학교", "대학원", "연구소", "연구원", "벤처스", "캐피털", "캐피탈"),
    *("은행", "재단", "협회", "공사", "위원회", "학회", "병원", "전자", "증권", "보험", "물산"),
    *("건설", "제약", "화학", "통신", "항공", "자동차", "중공업", "로보틱스", "테크", "랩스"),
    *("인베스트먼트", "파트너스", "홀딩스", "시스템즈", "솔루션즈", "소프트", "물류", "재단법인"),
    *("투자", "산업", "기술원", "과학기술원", "공단", "부처", "센터", "식품", "제과", "유통"),
    *("마트", "바이오", "모빌리티", "에너지", "엔터테인먼트", "미디어", "게임즈", "푸드", "커머스"),
    *("사업회", "기념사업회", "연합회", "조합", "학교", "고등학교", "중학교", "초등학교"),
)
UNIT_ENDINGS = ("팀", "본부", "학과", "학부", "공학부", "연구실", "사업부", "실험실", "부문")
EVENT_ENDINGS = (
    *("어워드", "박람회", "대회", "경진대회", "엑스포", "컨퍼런스", "포럼", "시상식", "전시회"),
    *("서밋", "페스티벌", "축제", "올림픽", "챌린지", "해커톤"),
)
STANDALONE_EVENT = frozenset(("어워드", "박람회", "엑스포", "컨퍼런스", "포럼", "서밋", "챌린지"))
COMPANY_MARKS = ("㈜", "(주)", "주식회사")
PLACES = frozenset(
    (
        *("서울", "부산", "대구", "인천", "광주", "대전", "울산", "세종", "경기", "경기도"),
        *("강원", "강원도", "충북", "충남", "충청북도", "충청남도", "전북", "전남", "전라북도"),
        *("전라남도", "경북", "경남", "경상북도", "경상남도", "제주", "제주도", "이천", "수원"),
        *("성남", "판교", "창원", "포항", "천안", "청주", "전주", "김해", "용인", "고양", "송도"),
        *("한국", "대한민국", "미국", "중국", "일본", "독일", "영국", "프랑스", "베트남", "인도"),
        *("싱가포르", "대만", "캐나다", "호주", "태국", "인도네시아", "말레이시아", "유럽"),
        *("동남아시아", "도쿄", "베이징", "상하이", "뉴욕", "런던", "파리", "베를린", "실리콘밸리"),
        *("Singapore", "Seoul", "Busan", "Daejeon", "Korea", "Japan", "China", "Germany"),
        *("Vietnam", "Jurong", "Incheon", "Tokyo", "London", "Berlin", "California", "Texas"),
        *("Southeast Asia", "South Korea", "United States", "Europe", "Asia", "Icheon"),
    )
)
PROVINCES = frozenset(
    (
        *(
            "경기도",
            "강원도",
            "충청북도",
            "충청남도",
            "전라북도",
            "전라남도",
            "경상북도",
            "경상남도",
        ),
        *("제주도", "경기", "강원", "충북", "충남", "전북", "전남", "경북", "경남", "서울", "부산"),
        *("대구", "인천", "광주", "대전", "울산", "미국", "중국", "일본", "독일", "베트남"),
    )
)
PLACE_ENDINGS = ("특별시", "광역시", "시", "도", "구", "군", "읍", "면")
EN_ORG_ENDINGS = frozenset(
    (
        *("inc", "corp", "corporation", "ltd", "llc", "co", "company", "group", "university"),
        *("institute", "bank", "ventures", "capital", "robotics", "logistics", "foundation"),
        *("association", "labs", "lab", "technologies", "technology", "systems", "partners"),
        *("holdings", "electronics", "motors", "college", "school", "agency", "council"),
        *("committee", "team", "department", "division", "tech", "software", "solutions"),
    )
)
EN_EVENT_ENDINGS = frozenset(("award", "awards", "expo", "conference", "summit", "forum", "fair"))
# Role words: "X의 대표는 Y이다" names a person Y even where Kiwi does not read Y as a name.
ROLES = frozenset(
    (
        *TITLES,
        *("대표이사", "최고경영자", "최고기술책임자", "창업자", "설립자", "창립자", "책임자"),
        *("최고재무책임자", "센터장", "연구소장", "공동창업자", "팀원", "상사", "후임", "전임"),
    )
)
MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
DATE_KO = re.compile(
    r"(?<!\d)\d{4}\s?년(?:\s?\d{1,2}\s?월(?:\s?\d{1,2}\s?일)?)?|(?<!\d)\d{1,2}월\s?\d{1,2}일"
)
DATE_EN = re.compile(
    rf"\b(?:\d{{1,2}}\s+)?(?:{MONTHS})(?:\s+\d{{1,2}},?)?\s+\d{{4}}\b|\b(?:in|since|of) (\d{{4}})\b"
)
MODEL_CODE = re.compile(r"^(?:[A-Za-z]{1,4}-?\d[\w.]*|\d+(?:\.\d+)+|[A-Z]\d*|Pro|Max|Mini)$")
