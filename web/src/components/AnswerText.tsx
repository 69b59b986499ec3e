// The answer with its [n] markers as links to the numbered passages (a marker without a
// passage stays plain text).

import { splitCitations } from "./citations";

export function AnswerText(props: {
  answer: string;
  passages: { n: number }[];
  onCite: (n: number) => void;
}) {
  const known = new Set(props.passages.map((p) => p.n));
  return (
    <div className="answer" data-testid="answer">
      {splitCitations(props.answer).map((part, i) =>
        part.kind === "text" ? (
          <span key={i}>{part.text}</span>
        ) : known.has(part.n) ? (
          <a
            key={i}
            href={`#passage-${part.n}`}
            className="citation"
            data-citation={part.n}
            onClick={(event) => {
              event.preventDefault();
              props.onCite(part.n);
            }}
          >
            {part.raw}
          </a>
        ) : (
          <span key={i}>{part.raw}</span>
        ),
      )}
    </div>
  );
}
