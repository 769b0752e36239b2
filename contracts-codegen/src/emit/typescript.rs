//! emit::typescript: the model to a TypeScript package (types, Zod schemas, tables).
