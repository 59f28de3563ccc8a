// class-transformer keeps its decorator metadata in a module it does not re-export from its entry point; the compiled
// query pipe reads the `@Transform()`s of a query class from it once, as schema generators built on class-transformer do.
declare module 'class-transformer/cjs/storage' {
  export { defaultMetadataStorage } from 'class-transformer/types/storage';
}
