"""Questions that no knowledge base is about: general-knowledge questions, one set per script.

The calibration measures how similar e5 finds them to a KB's passages of the other script: the
best similarity an unrelated question reaches there is what a cross-lingual passage has to beat
to count as evidence (`calibration.evidence_floors`). Our own text; the two lists ask the same
things, so neither script's floor comes from easier questions.
"""

from __future__ import annotations

LATIN = (
    "How long should I boil an egg for a soft yolk?",
    "What is the tallest mountain in Africa?",
    "When did the first person walk on the moon?",
    "How do I reset a forgotten email password?",
    "Which instrument has 88 keys?",
    "What causes the seasons on Earth?",
    "How many players are on a basketball team on the court?",
    "What is the chemical symbol for gold?",
    "Who painted the ceiling of the Sistine Chapel?",
    "How do bees make honey?",
    "What is the speed of sound in air?",
    "Which country hosted the 2016 Summer Olympics?",
    "How often should a cactus be watered?",
    "What language is spoken in Brazil?",
    "How does a refrigerator keep food cold?",
    "What year did the Berlin Wall fall?",
    "How many strings does a violin have?",
    "What is the largest desert in the world?",
    "Why is the sky blue?",
    "Which planet is closest to the sun?",
    "How do you tie a bowline knot?",
    "What is the main ingredient of guacamole?",
    "Who invented the telephone?",
    "How deep is the Mariana Trench?",
)

HANGUL = (
    "반숙 달걀은 몇 분 동안 삶아야 하나요?",
    "아프리카에서 가장 높은 산은 무엇인가요?",
    "인류가 처음 달에 착륙한 해는 언제인가요?",
    "잊어버린 이메일 비밀번호는 어떻게 재설정하나요?",
    "건반이 88개인 악기는 무엇인가요?",
    "지구에 계절이 생기는 이유는 무엇인가요?",
    "농구 경기에서 한 팀은 코트에 몇 명이 뛰나요?",
    "금의 원소 기호는 무엇인가요?",
    "시스티나 성당의 천장화를 그린 화가는 누구인가요?",
    "꿀벌은 꿀을 어떻게 만드나요?",
    "공기 중에서 소리의 속도는 얼마인가요?",
    "2016년 하계 올림픽을 개최한 나라는 어디인가요?",
    "선인장에는 물을 얼마나 자주 줘야 하나요?",
    "브라질에서는 어떤 언어를 사용하나요?",
    "냉장고는 어떻게 음식을 차갑게 유지하나요?",
    "베를린 장벽이 무너진 해는 언제인가요?",
    "바이올린의 줄은 몇 개인가요?",
    "세계에서 가장 큰 사막은 어디인가요?",
    "하늘은 왜 파란색인가요?",
    "태양에 가장 가까운 행성은 무엇인가요?",
    "보라인 매듭은 어떻게 묶나요?",
    "과카몰리의 주재료는 무엇인가요?",
    "전화기를 발명한 사람은 누구인가요?",
    "마리아나 해구의 깊이는 얼마인가요?",
)

UNRELATED_QUESTIONS: dict[str, tuple[str, ...]] = {"hangul": HANGUL, "latin": LATIN}
