"""English irregular verb forms and their base form: "found" → "find", "written" → "write".

The Snowball stemmer folds regular inflections ("founded", "founds" → "found") but not irregular
ones, so "What did the audit find?" shared no word with "Two issues were found". The irregular
verbs of English are a closed class; this is a bounded table of the common ones (base, past,
past participle), not a general lemmatiser. Two libraries were weighed and left out
(docs/benchmarks.md, issue 24 session 11): lemminflect (770 kB, data in its wheel, no release
since 2022) and simplemma (19 MB wheel, no parts of speech: it reads "saw" as "see"); each takes
about a second and 30 MB on its first use in a process.

Left out on purpose:
- forms that are as often a noun or an adjective ("left", "saw", "felt", "thought", "ground",
  "rose", "born", "bore", "lay", "shot", "lit", "wound", "bound", "bent"): folded into the
  verb, they would match unrelated words;
- the verbs whose forms are request words of `planner/query_text.GENERIC_WORDS` ("written",
  "came", "tell", "show", "give"): folded, "wrote" and "told" would become request words too;
- "do", "have" and "be": function words the reader drops anyway.
"""

from __future__ import annotations

# base past participle, one verb a line; "-": not listed (the same as the past, or left out).
_TABLE = """
arise arose arisen
awake awoke awoken
begin began begun
bite bit bitten
bleed bled -
blow blew blown
break broke broken
breed bred -
bring brought -
build built -
burn burnt -
buy bought -
catch caught -
choose chose chosen
cling clung -
creep crept -
deal dealt -
dig dug -
draw drew drawn
dream dreamt -
drink drank drunk
drive drove driven
eat ate eaten
fall fell fallen
feed fed -
fight fought -
find found -
flee fled -
fling flung -
fly flew flown
forbid forbade forbidden
forget forgot forgotten
forgive forgave forgiven
freeze froze frozen
get got gotten
go went gone
grow grew grown
hang hung -
hear heard -
hide hid hidden
hold held -
keep kept -
kneel knelt -
know knew known
lead led -
leap leapt -
learn learnt -
lend lent -
lose lost -
make made -
mean meant -
meet met -
mistake mistook mistaken
overcome overcame -
overtake overtook overtaken
pay paid -
rebuild rebuilt -
ride rode ridden
ring rang rung
rise - risen
run ran -
say said -
see - seen
seek sought -
sell sold -
send sent -
shake shook shaken
shine shone -
shrink shrank shrunk
sing sang sung
sink sank sunk
sit sat -
sleep slept -
slide slid -
speak spoke spoken
speed sped -
spend spent -
spin spun -
spring sprang sprung
stand stood -
steal stole stolen
stick stuck -
sting stung -
strike struck stricken
strive strove striven
swear swore sworn
sweep swept -
swim swam swum
swing swung -
take took taken
teach taught -
tear tore torn
throw threw thrown
tread trod trodden
undertake undertook undertaken
understand understood -
uphold upheld -
wake woke woken
wear wore worn
weave wove woven
weep wept -
win won -
withdraw withdrew withdrawn
withhold withheld -
withstand withstood -
"""


def _forms() -> dict[str, str]:
    forms: dict[str, str] = {}
    for line in _TABLE.strip().splitlines():
        base, past, participle = line.split()
        for form in (past, participle):
            if form != "-" and form != base:
                forms[form] = base
    return forms


IRREGULAR_FORMS: dict[str, str] = _forms()


def base_form(word: str) -> str:
    """The base form of a lower-case English word that is an irregular verb's past or past
    participle in the table ("found" → "find"); any other word as it is."""
    return IRREGULAR_FORMS.get(word, word)
