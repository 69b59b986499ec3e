"""Questions that need no retrieval (`mode: direct`): greetings, thanks and goodbyes, and questions
about the assistant itself ("what can you do?", "너는 누구야?"), alone or after a greeting.

A question that also asks something else ("안녕하세요, 환불 규정 알려주세요") is not direct.
"""

from __future__ import annotations

import re

# Where one alternative starts another, the longer comes first (the repeats below never backtrack).
_GREETING = (
    r"안녕(?:하세요|하십니까|히\s*계세요|히)?|반갑(?:습니다|네요)|반가워(?:요)?|고마워(?:요)?|고맙"
    r"(?:습니다|네요)|감사(?:합니다|해요|드립니다|드려요)?|땡큐|수고(?:하셨습니다|하셨어요|했어요|하세요)"
    r"|좋은\s*(?:아침|하루)(?:입니다|이에요)?|잘\s*가(?:요)?|또\s*봐(?:요)?|네|넵|응|ㅎㅇ|ㄳ|ㄱㅅ"
    r"|여러분|[ㅎㅋ]+|안녕히\s*(?:계세요|가세요)|처음\s*뵙겠습니다|만나서\s*반가워(?:요)?"
    r"|만나서\s*반갑습니다|잘\s*지냈(?:어|어요|나요|니)|잘\s*지내(?:요|세요|니|시죠)?"
    r"|nice\s+to\s+meet\s+you|pleased\s+to\s+meet\s+you|hiya|hi|hello|hey|howdy|greetings|yo|there|everyone|all|folks|team"
    r"|thanks?(?:\s+(?:you|a\s+lot|so\s+much|again))*|thank\s+you(?:\s+(?:so|very)\s+much)?"
    r"|many\s+thanks|much\s+appreciated|appreciate\s+it|cheers|ok(?:ay)?|cool|great|nice"
    r"|good\s+(?:morning|afternoon|evening|night|day)|bye|goodbye|good\s*bye|see\s+you(?:\s+later)?"
    r"|have\s+a\s+(?:nice|good|great)\s+day"
    # thanks and praise for an answer ("thanks, that was helpful", "덕분에 잘 해결했어요")
    r"|(?:that|this|it)(?:'s|\s+was|\s+is)\s+(?:very\s+|really\s+|so\s+|super\s+|extremely\s+)?"
    r"(?:helpful|useful|great|perfect|awesome|clear|exactly\s+what\s+i\s+needed)"
    r"|(?:very\s+|really\s+|super\s+)?helpful|got\s+it|i\s+see|understood|perfect|awesome|wonderful"
    r"|(?:thanks|thank\s+you)\s+for\s+(?:the|your)\s+(?:help|answer|explanation|time)"
    r"|appreciate\s+(?:the|your)\s+help|for\s+(?:the|your)\s+(?:help|answer|explanation|time)"
    r"|(?:좋은|훌륭한|친절한|자세한|명쾌한)\s*(?:답변|설명)(?:이에요|입니다|이네요|이었어요)?"
    r"|도움이\s*(?:많이\s*|정말\s*|큰\s*)?(?:됐|되었|되)(?:어요|어|습니다|네요|어요|요)?|덕분(?:에|이에요|입니다)"
    r"|잘\s*(?:알겠|알았|해결했|이해했)(?:습니다|어요|어|네요)?|알겠(?:습니다|어요|어)|알았(?:어요|어|습니다)"
    r"|이해했(?:습니다|어요|어)|해결(?:됐|되었)(?:습니다|어요|네요)?|좋(?:아요|네요|습니다)|훌륭(?:해요|하네요|합니다)"
    r"|완벽(?:해요|하네요|합니다)|최고(?:예요|에요|야|네요)?|정말|진짜|너무|많이|완전|대단히"
    r"|(?:답변|설명)(?:이|은)?"
    r"|how\s+are\s+you(?:\s+doing)?(?:\s+today)?|how(?:'s|\s+is)\s+it\s+going|what'?s\s+up|sup"
)

# About the assistant: what it is, what it can do, how to use it.
_CAPABILITY = (
    r"(?:너는?|넌|당신은?|그쪽은?)\s*(?:누구(?:야|니|세요|예요|인가요|십니까)?|뭐(?:야|니|예요)?"
    r"|무엇(?:인가요|이야|이니)?|정체가\s*뭐(?:야|예요)?)"
    r"|누구(?:세요|야|니|십니까|신가요)"
    r"|(?:너는?|넌|당신은?)?\s*(?:뭘|무엇을|뭐|무슨\s*일을|어떤\s*(?:일|것)을?)\s*(?:할\s*수\s*있|도와\s*줄?\s*수\s*있"
    r"|도와\s*주실\s*수\s*있|해\s*줄\s*수\s*있|잘\s*하)(?:어|어요|나요|니|습니까|지|는지|죠)?"
    r"(?:\s*알려\s*줘(?:요)?)?"
    r"|(?:어떤|무슨)\s*(?:질문|걸|것)을?\s*(?:할\s*수\s*있|물어\s*볼\s*수\s*있|물어봐도\s*돼)"
    r"(?:어|어요|나요|니|습니까|지)?"
    r"|자기\s*소개\s*(?:좀\s*)?(?:해\s*줘|해\s*주세요|부탁해(?:요)?|해\s*봐)?|소개\s*좀\s*해\s*줘"
    r"|(?:(?:너|네|당신)\s*)?이름(?:이|은)?\s*(?:뭐(?:야|니|예요)?|무엇인가요)"
    r"|(?:이\s*(?:챗봇|봇|서비스|시스템)|챗봇)\s*(?:은|는)?\s*(?:뭐(?:야|예요)?|무엇인가요|어떻게\s*써(?:요)?"
    r"|어떻게\s*사용해(?:요)?)"
    r"|(?:사용법|도움말|기능)\s*(?:좀\s*)?(?:알려\s*줘(?:요)?|알려\s*주세요|보여\s*줘)?"
    r"|도와\s*줄?\s*수\s*있(?:어|어요|나요|니)"
    r"|what\s+(?:can|could|do)\s+you\s+(?:do|help(?:\s+me)?\s+with|offer)(?:\s+for\s+me)?"
    r"|what\s+are\s+you(?:\s+able\s+to\s+do|\s+good\s+at|\s+for)?|who\s+are\s+you"
    r"|what(?:'s|\s+is)\s+your\s+name|what\s+are\s+your\s+(?:capabilities|features|skills)"
    r"|how\s+(?:can|could|do|would)\s+you\s+help(?:\s+me)?|can\s+you\s+help(?:\s+me)?"
    r"|how\s+do(?:es)?\s+(?:this|it|you)\s+work|how\s+do\s+i\s+use\s+(?:this|you|it)"
    r"|what\s+(?:kinds?|sorts?|types?)\s+of\s+(?:questions|things)\s+can\s+i\s+ask(?:\s+you)?"
    r"|what\s+can\s+i\s+ask(?:\s+you)?|tell\s+me\s+about\s+yourself|introduce\s+yourself"
    r"|are\s+you\s+(?:a\s+)?(?:bot|robot|human|an?\s+ai|chatgpt)|help(?:\s+me)?"
    r"|what\s+is\s+this(?:\s+(?:bot|service|assistant|tool|thing))?"
)
MAX_CHARS = 120
_FILLER = r"(?:please|pls|plz|좀|혹시|그런데|근데|그럼|so|and|but|then)"
_TRAIL = r"[\s!.,~?^:)]*"
_DIRECT = re.compile(
    # Possessive repeats (never given back): no exponential backtracking on long input.
    rf"^(?:(?:{_GREETING}){_TRAIL})*+(?:{_FILLER}\s*)?(?:(?:{_CAPABILITY}){_TRAIL})?"
    rf"(?:(?:{_GREETING}){_TRAIL})*+$",
    re.IGNORECASE,
)


def is_direct(question: str) -> bool:
    """A greeting, thanks or goodbye, or a question about the assistant, and nothing else."""
    text = question.strip()
    # Small talk is short; the cap also bounds the regex's backtracking on long input.
    return 0 < len(text) <= MAX_CHARS and bool(_DIRECT.match(text))
