// A seeded synthetic conversation history for the retrieval bench: planted facts, later updates of
// some of them, and dated events, among distractor sessions. Same seed, same corpus.

/** One stored turn (one event: a user message or an answer). */
export interface CorpusTurn {
  id: string;
  sessionId: string;
  author: 'user' | 'assistant';
  text: string;
  /** ms */
  timestamp: number;
}

/** A question whose answer is one planted turn. */
export interface CorpusQuery {
  query: string;
  /** The turn that answers it. */
  target: string;
  kind: 'fact' | 'update' | 'event';
  /** For updates: the superseded turn (ranking it above the target is an outdated answer). */
  outdated?: string;
}

export interface Corpus {
  turns: CorpusTurn[];
  queries: CorpusQuery[];
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TOPICS = (
  'garden recipe weather train meeting budget holiday laptop movie concert bakery museum river mountain ' +
  'invoice printer spreadsheet podcast marathon yoga library airport hotel bicycle coffee pasta salad ' +
  'soup jacket umbrella market festival football tennis chess guitar piano painting camera phone ' +
  'battery charger kitchen bathroom balcony window curtain sofa carpet lamp desk chair keyboard mouse ' +
  'monitor server deployment release bug ticket roadmap interview salary contract lease mortgage ' +
  'insurance doctor pharmacy vitamins breakfast lunch dinner snack dessert wine tea juice water'
).split(' ');
const ADJECTIVES = (
  'new old busy quiet noisy cheap expensive tricky simple long short early late sunny rainy cold warm ' +
  'strange lovely boring exciting slow fast heavy light bright dark'
).split(' ');
const VERBS =
  'fixed planned booked cancelled cleaned bought sold moved tried finished started reviewed'.split(' ');

const USER_TEMPLATES = [
  (t: string, u: string, a: string, v: string) => `I ${v} the ${a} ${t} today, and the ${u} is next.`,
  (t: string, u: string, a: string) => `Do you have ideas for a ${a} ${t}? Maybe something with ${u}.`,
  (t: string, u: string, a: string, v: string) => `Yesterday we ${v} the ${t}; the ${u} was ${a}.`,
  (t: string, u: string) => `Can you help me compare the ${t} and the ${u}?`,
  (t: string, u: string, a: string) => `The ${t} was ${a} again, so I skipped the ${u}.`,
];
const ANSWER_TEMPLATES = [
  (t: string, u: string, a: string) => `A ${a} ${t} sounds good. For the ${u}, keep it simple.`,
  (t: string, u: string) => `Here are three thoughts on the ${t}, and one on the ${u}.`,
  (t: string, u: string, a: string) => `Noted: the ${t} is ${a}. Shall I remind you about the ${u}?`,
];

const ATTRIBUTES: [string, string, string][] = [
  // attribute, question wording, values (first, then an update for the first ones)
  ["sister's name", "What is my sister's name?", 'Ingrid|Solveig'],
  ["dog's name", "What is my dog's name?", 'Pickles|Waffle'],
  ['favourite colour', 'What is my favourite colour?', 'teal|ochre'],
  ['home town', 'Which town is my home town?', 'Tromso|Bergen'],
  ['car', 'What car do I drive?', 'Skoda Octavia|Volvo V60'],
  ['employer', 'Who is my employer?', 'Brightwater Labs|Nordhavn Systems'],
  ['dentist', 'Who is my dentist?', 'Dr Okonkwo|Dr Lindqvist'],
  ['gym', 'Which gym do I go to?', 'Ironclad Fitness|Harbour Gym'],
  ['phone plan', 'Which phone plan do I have?', 'Telenor Flex|Ice Basic'],
  ['landlord', 'Who is my landlord?', 'Mrs Abernathy|Mr Castellano'],
  ['allergy', 'What am I allergic to?', 'hazelnuts'],
  ['blood type', 'What is my blood type?', 'O negative'],
  ['favourite book', 'What is my favourite book?', 'The Left Hand of Darkness'],
  ["partner's birthday", "When is my partner's birthday?", 'the ninth of October'],
  ['shoe size', 'What is my shoe size?', 'forty-three'],
  ['bike', 'What bike do I ride?', 'a Brompton folding bike'],
  ['bank', 'Which bank am I with?', 'Sparebank Vest'],
  ['cat', 'What is my cat called?', 'Mochi'],
  ['favourite band', 'What is my favourite band?', 'Khruangbin'],
  ['language course', 'Which language am I learning?', 'Portuguese'],
  ['coffee order', 'What is my usual coffee order?', 'a cortado with oat milk'],
  ['running shoes', 'Which running shoes do I wear?', 'Hoka Clifton'],
  ['daughter school', 'Which school does my daughter attend?', 'Fjellvei Primary'],
  ['wifi password hint', 'What is the hint for my wifi password?', 'the lighthouse and the year'],
  ['podcast', 'Which podcast do I listen to?', 'Hardcore History'],
];

const EVENTS: [string, string][] = [
  ['ran the Lisbon half marathon', 'When did I run the Lisbon half marathon?'],
  ['had my wisdom tooth removed', 'When did I have my wisdom tooth removed?'],
  ['adopted the rescue greyhound', 'When did I adopt the rescue greyhound?'],
  ['signed the apartment lease in Grunerlokka', 'When did I sign the apartment lease?'],
  ['passed the sailing licence exam', 'When did I pass the sailing licence exam?'],
  ['flew to Reykjavik for the conference', 'When did I fly to Reykjavik?'],
  ['started the pottery class', 'When did I start the pottery class?'],
  ['broke my left wrist skiing', 'When did I break my wrist?'],
  ['met Priya at the climbing wall', 'When did I meet Priya?'],
  ['sold the old Vespa scooter', 'When did I sell the Vespa?'],
  ['got the promotion to team lead', 'When did I get promoted to team lead?'],
  ['planted the apple tree in the allotment', 'When did I plant the apple tree?'],
  ['renewed my passport at the embassy', 'When did I renew my passport?'],
  ['baked the wedding cake for Tomas', "When did I bake Tomas's wedding cake?"],
  ['visited the Vigeland sculpture park', 'When did I visit the Vigeland park?'],
];

const MONTHS = 'January February March April May June July August September October November December'.split(
  ' ',
);

/**
 * `turns` events in sessions of `perSession` turns (user and answer alternating), an hour apart.
 * Facts are planted in the first third, their updates in the last third, events anywhere.
 */
export function buildCorpus(turns: number, seed = 37, perSession = 50): Corpus {
  const random = mulberry32(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const sessions = Math.max(1, Math.ceil(turns / perSession));
  const start = Date.UTC(2024, 0, 1);
  const out: CorpusTurn[] = [];
  for (let s = 0; s < sessions; s++) {
    for (let i = 0; i < perSession && out.length < turns; i++) {
      const [t, u, a, v] = [pick(TOPICS), pick(TOPICS), pick(ADJECTIVES), pick(VERBS)];
      const user = i % 2 === 0;
      out.push({
        id: `t${out.length}`,
        sessionId: `s${s}`,
        author: user ? 'user' : 'assistant',
        text: user ? pick(USER_TEMPLATES)(t, u, a, v) : pick(ANSWER_TEMPLATES)(t, u, a),
        timestamp: start + s * 3_600_000 + i * 1000,
      });
    }
  }
  const queries: CorpusQuery[] = [];
  // A planted turn replaces a user turn at a random place of the given range of the history.
  const used = new Set<number>();
  const plant = (from: number, to: number, text: string): string => {
    for (;;) {
      let at = Math.floor(from + random() * Math.max(1, to - from));
      at -= at % 2; // user turns are the even ones of each session
      if (at >= out.length || used.has(at)) continue;
      used.add(at);
      const turn = out[at] as CorpusTurn;
      turn.text = text;
      return turn.id;
    }
  };
  const n = out.length;
  for (const [attribute, question, values] of ATTRIBUTES) {
    const [first, second] = values.split('|') as [string, string | undefined];
    const original = plant(0, n / 3, `By the way, my ${attribute} is ${first}.`);
    if (second) {
      const update = plant(
        (2 * n) / 3,
        n,
        `Update: my ${attribute} is now ${second}, not ${first} any more.`,
      );
      queries.push({ query: question, target: update, kind: 'update', outdated: original });
    } else queries.push({ query: question, target: original, kind: 'fact' });
  }
  for (const [what, question] of EVENTS) {
    const day = 1 + Math.floor(random() * 28);
    const month = pick(MONTHS);
    const id = plant(0, n, `On ${day} ${month} 2024 I ${what}.`);
    queries.push({ query: question, target: id, kind: 'event' });
  }
  return { turns: out, queries };
}

export interface RetrievalScores {
  recallAt5: number;
  mrr: number;
  /** Share of update questions where the superseded turn ranks above the current one. */
  outdatedRate: number;
}

/** Recall@5, MRR (over the top 10) and the outdated-fact rate of ranked turn ids per query. */
export function scoreRetrieval(
  queries: readonly CorpusQuery[],
  rankings: readonly string[][],
): RetrievalScores {
  let hits = 0;
  let rr = 0;
  let updates = 0;
  let outdated = 0;
  queries.forEach((q, i) => {
    const ranking = rankings[i] ?? [];
    const rank = ranking.indexOf(q.target);
    if (rank >= 0 && rank < 5) hits++;
    if (rank >= 0 && rank < 10) rr += 1 / (rank + 1);
    if (q.kind === 'update' && q.outdated) {
      updates++;
      const old = ranking.indexOf(q.outdated);
      if (old >= 0 && old < 5 && (rank < 0 || old < rank)) outdated++;
    }
  });
  return {
    recallAt5: hits / Math.max(1, queries.length),
    mrr: rr / Math.max(1, queries.length),
    outdatedRate: outdated / Math.max(1, updates),
  };
}

/** A plain BM25 (k1 1.2, b 0.75) over the same turns: the baseline every store's ranking must beat. */
export function bm25Rankings(
  turns: readonly CorpusTurn[],
  queries: readonly string[],
  limit = 10,
): string[][] {
  const tokenize = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const docs = turns.map((t) => tokenize(t.text));
  const df = new Map<string, number>();
  const postings = new Map<string, number[]>();
  docs.forEach((tokens, d) => {
    for (const token of new Set(tokens)) {
      df.set(token, (df.get(token) ?? 0) + 1);
      const list = postings.get(token) ?? [];
      postings.set(token, list);
      list.push(d);
    }
  });
  const avg = docs.reduce((s, d) => s + d.length, 0) / Math.max(1, docs.length);
  return queries.map((query) => {
    const scores = new Map<number, number>();
    for (const token of new Set(tokenize(query))) {
      const n = df.get(token);
      if (!n) continue;
      const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
      for (const d of postings.get(token) ?? []) {
        const tokens = docs[d] as string[];
        let tf = 0;
        for (const t of tokens) if (t === token) tf++;
        const s = (idf * tf * 2.2) / (tf + 1.2 * (1 - 0.75 + (0.75 * tokens.length) / avg));
        scores.set(d, (scores.get(d) ?? 0) + s);
      }
    }
    return [...scores.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([d]) => (turns[d] as CorpusTurn).id);
  });
}
