// The widget's English words for a node and its verdict, as the tests of the modules that write
// rows (table.js, csv.js) give them: one copy, each test adding the words of its own module.
export const VERDICT_WORDS = {
  node_name: "{count} × {gpu}",
  single: "one card",
  split: "split",
  none: "does not fit",
  layout: "{cards} cards, TP {tp} × PP {pp}",
};
