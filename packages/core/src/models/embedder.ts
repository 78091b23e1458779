/** What an embedding is for; providers that take a task type (Gemini) send it, others ignore it. */
export type EmbeddingTaskType =
  | 'RETRIEVAL_QUERY'
  | 'RETRIEVAL_DOCUMENT'
  | 'SEMANTIC_SIMILARITY'
  | 'CLASSIFICATION'
  | 'CLUSTERING'
  | 'QUESTION_ANSWERING'
  | 'FACT_VERIFICATION'
  | 'CODE_RETRIEVAL_QUERY';

export interface EmbedOptions {
  taskType?: EmbeddingTaskType;
  signal?: AbortSignal;
}

/**
 * An embedding model. `embed` returns one vector of length `dimensions` per input text, in order.
 * Implementations split inputs larger than `maxBatchSize` into several calls themselves.
 */
export interface Embedder {
  /** The vendor model name, e.g. 'gemini-embedding-001'. */
  readonly model: string;
  /** Length of every vector `embed` returns. */
  readonly dimensions: number;
  /** Most texts one vendor call accepts. */
  readonly maxBatchSize?: number;
  embed(texts: readonly string[], options?: EmbedOptions): Promise<number[][]>;
}
