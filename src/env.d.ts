declare namespace App {
  interface Locals {
    /** Set by ArticleBody while an article's MDX renders. */
    shice?: import('./article/render/context.ts').ArticleContext;
  }
}
