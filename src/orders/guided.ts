// `giftcodes order place` alone at a terminal: a guided order. The catalog is searched by typing (id, brand,
// name, currency, price), a quantity is chosen, the unit price and the total are shown, and the order is
// confirmed (default No for a live one) before the usual exactly-once path places it.
import type { ApiClient } from '../api/client.js';
import type { Product } from '../api/schemas.js';
import type { Connection } from '../config/resolve.js';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { InterruptedError, nothingSent } from '../errors.js';
import { formatMoney, majorUnits, spokenMoney } from '../money.js';
import type { Io } from '../output/io.js';
import { display } from '../output/table.js';
import { padToWidth, textWidth } from '../output/width.js';
import { grouped, unitsOf } from '../output/words.js';
import { nearestIds } from '../near.js';
import { MAX_QUANTITY } from './limits.js';
import { wallet } from './confirm.js';
import { unitPriceOf } from './products.js';

/** What a typed search is matched against: id, brand, name, currency and price as a person writes them. */
function searchText(product: Product): string {
  const price = unitPriceOf(product);
  const money = price
    ? `${majorUnits(price.amount, price.currency)} ${price.currency} ${formatMoney(price.amount, price.currency)} ${spokenMoney(price.amount, price.currency)}`
    : '';
  return `${product.id} ${display(product.brand)} ${display(product.name ?? product.title)} ${money}`.toLowerCase();
}

/** Whether the catalog says the product cannot be ordered now (`available` or `in_stock` false, never a guess). */
function unavailable(product: Product): boolean {
  return product.available === false || product.in_stock === false;
}

/**
 * The search list's rows: id, brand and price in aligned columns, prices right-aligned (a person compares them down a column), the
 * answer shown as the id alone once chosen, and a product the catalog says is unavailable listed but not choosable.
 */
export function productChoices(
  products: readonly Product[],
): { value: string; name: string; short: string; disabled?: string }[] {
  const idWidth = Math.max(0, ...products.map((p) => p.id.length));
  const brandWidth = Math.max(0, ...products.map((p) => textWidth(display(p.brand))));
  const monies = products.map((p) => {
    const price = unitPriceOf(p);
    return price ? spokenMoney(price.amount, price.currency) : '';
  });
  const moneyWidth = Math.max(0, ...monies.map((m) => m.length));
  return products.map((p, i) => {
    const name = `${p.id.padEnd(idWidth)}  ${padToWidth(display(p.brand), brandWidth)}  ${monies[i]!.padStart(moneyWidth)}`;
    return { value: p.id, name, short: p.id, ...(unavailable(p) ? { disabled: '(unavailable)' } : {}) };
  });
}

/**
 * The product picked from the search. Text and its Enter in one read (a pasted id, a search typed fast) were answered
 * from the list as it stood before the text filtered it: the catalog's first product was ordered while the answer
 * line showed the id pasted (a person's-day review; live orders too). A pick that is not among the matches of what
 * was typed is taken as the list would have had it: the product of that exact id, else the first match; with no
 * match at all it is asked again.
 */
async function pickProduct(
  io: Io,
  products: readonly Product[],
  matching: (term: string) => readonly { value: string }[],
  cancelled: InterruptedError,
): Promise<string> {
  const message = 'Product (type to search by id, brand, name, currency or price)';
  for (;;) {
    let typed = '';
    // The picker and its list are cleared when it ends: Ctrl-C left the ten rows of the list on the screen above
    // "cancelled: nothing was sent" (a person's day), as if they were still to choose from. A product chosen is
    // said on a line of its own, as the prompt said it, naming the product taken.
    const picked: string = await io.prompt(
      ({ search }, context) =>
        search<string>(
          {
            message,
            pageSize: 10,
            source: (term) => {
              typed = term ?? '';
              return matching(typed);
            },
          },
          { ...context, clearPromptOnDone: true },
        ),
      cancelled,
    );
    const chosen = chosenProduct(picked, typed, products, matching);
    if (chosen !== undefined) {
      io.stderr.write(`${io.ce.green('✔')} ${io.ce.bold(message)} ${io.ce.cyan(chosen)}\n`);
      return chosen;
    }
    io.warn(`no product matches "${typed.trim()}": search again (by id, brand, currency or price)`);
  }
}

/** What a pick means (pickProduct): the pick where it is among the matches of what was typed, else as the list would have had it. */
function chosenProduct(
  picked: string,
  typed: string,
  products: readonly Product[],
  matching: (term: string) => readonly { value: string }[],
): string | undefined {
  const matches = matching(typed);
  if (matches.some((choice) => choice.value === picked)) return picked;
  const exact = products.find((p) => p.id.toLowerCase() === typed.trim().toLowerCase());
  if (exact) return exact.id;
  return matches[0]?.value;
}

/**
 * The product, quantity and codes file a person chose and confirmed; InterruptedError when they said no. The codes
 * file is asked when no --out was given: Enter for none (the order is placed, its codes got later), else a file
 * `checkFile` accepts (a format it names, not a file already there), written once the order completes, as --out
 * would. A guided order used to end at "follow it with: giftcodes order watch", two commands short of the codes.
 */
export async function guidedOrder(
  io: Io,
  api: ApiClient,
  connection: Connection,
  products: readonly Product[],
  given: {
    product?: string | undefined;
    quantity?: number | undefined;
    out?: string | undefined;
    checkFile?: (path: string) => string | true;
    /**
     * When this product and quantity would finish an interrupted order rather than place one: when it was started, and
     * whether its request was ever sent (one never sent is charged for the first time now).
     */
    resumes?: (product: string, quantity: number) => { key: string; started: string; sent: boolean } | undefined;
  } = {},
): Promise<{ product: string; quantity: number; out?: string; resumes?: string }> {
  const live = connection.environment === 'live';
  // Ctrl-C at any question stops the order as "no" at the last one does, in its words.
  const cancelled = nothingSent();
  const choices = productChoices(products);
  const texts = products.map(searchText);
  const among = (words: readonly string[]): typeof choices =>
    choices.filter((_, i) => words.every((w) => texts[i]!.includes(w))).slice(0, 200);
  // A word no product holds is read as the catalog's word nearest it, as catalog list --filter says it: "stem" showed
  // "No results found" (a person's day). Only when nothing matches as typed; the order is confirmed before it is sent.
  let vocabulary: string[] | undefined;
  const matching = (term: string): typeof choices => {
    const words = term.toLowerCase().split(/\s+/).filter(Boolean);
    const found = among(words);
    if (found.length > 0 || words.length === 0) return found;
    vocabulary ??= [...new Set(texts.flatMap((text) => text.split(/[^\p{L}\p{N}.]+/u)).filter((w) => w.length > 2))];
    const known = vocabulary;
    return among(words.map((w) => (texts.some((t) => t.includes(w)) ? w : (nearestIds(w, known)[0] ?? w))));
  };
  // What the flags gave is not asked again (`order place --product steam-us-20` asks the quantity only).
  const product = given.product ?? (await pickProduct(io, products, matching, cancelled));
  const quantity =
    given.quantity ??
    typedQuantity(
      await io.prompt(
        ({ input }, context) =>
          input(
            {
              message: `Quantity of ${product}`,
              validate: (value) =>
                typedQuantity(value) !== undefined ? true : `a whole number from 1 to ${grouped(MAX_QUANTITY)}`,
            },
            context,
          ),
        cancelled,
      ),
    )!;
  const file =
    given.out !== undefined || given.checkFile === undefined
      ? ''
      : (
          await io.prompt(
            ({ input }, context) =>
              input(
                {
                  message: 'Codes file, e.g. codes.csv or codes.xlsx (Enter: none, get them later)',
                  validate: (value) => (value.trim() === '' ? true : given.checkFile!(homePath(value.trim()))),
                },
                context,
              ),
            cancelled,
          )
        ).trim();
  const out = file === '' ? '' : homePath(file);
  // The file the confirmation names: the one typed here, or --out as given (a person's-day review's `--quantity 5
  // --out q.csv` was asked to confirm without it, then had its codes written there).
  const named = given.out === undefined ? file : given.out === '-' ? 'standard output' : given.out;
  const chosen = products.find((p) => p.id === product);
  const price = chosen ? unitPriceOf(chosen) : undefined;
  const cost = price
    ? ` at ${spokenMoney(price.amount, price.currency)} each, ${spokenMoney(price.amount * quantity, price.currency)} in all`
    : '';
  // The same request as an order left interrupted is that order, finished (the journal's rule): asked as such, not as
  // "Place", which read as a new order (a person's-day review answered yes and got the old one).
  const started = given.resumes?.(product, quantity);
  const yes = await io.prompt(
    ({ confirm }, context) =>
      confirm(
        {
          // One never sent is placed now, for the first time: "it is not charged again" was said of it (a review).
          message: started?.sent
            ? `Finish the interrupted ${live ? 'LIVE' : 'test'} order for ${unitsOf(quantity, product)}${cost}, started ${started.started}${named ? `, and write its codes to ${named}` : ''}? It was sent before: it is not charged again.`
            : started
              ? `Place the interrupted ${live ? 'LIVE' : 'test'} order for ${unitsOf(quantity, product)}${cost}, started ${started.started}${named ? `, and write its codes to ${named}` : ''}? It was never sent: it is placed now, for the first time.${live ? ` It is charged to ${wallet(connection)}.` : ''}`
              : `Place ${live ? 'a LIVE' : 'a test'} order for ${unitsOf(quantity, product)}${cost}${named ? `, and write its codes to ${named}` : ''}?${live ? ` It is charged to ${wallet(connection)}.` : ''}`,
          // Finishing one that was sent charges nothing: Yes by default, live or not (review F9: Enter left it unfinished).
          default: started?.sent === true || !live,
        },
        context,
      ),
    cancelled,
  );
  // Declined, one that was sent is left as it was, and may have been charged: said, with its ways out (review F9:
  // "cancelled: nothing was sent" of an order that may well be charged).
  if (!yes && started?.sent)
    throw new InterruptedError(
      `cancelled: no new order was sent; the interrupted order of ${unitsOf(quantity, product)} (key ${started.key}) was left as it was (it may have been charged)`,
      { hint: `finish it: giftcodes order resume ${started.key}; or drop it: giftcodes order abandon ${started.key}` },
    );
  if (!yes) throw cancelled;
  // The key of the interrupted order the person said yes to finishing: that order, or nothing (place.ts).
  return { product, quantity, ...(out ? { out } : {}), ...(started ? { resumes: started.key } : {}) };
}

/**
 * A quantity as a person types it at the prompt: digits, or digits grouped in threes by commas as the prompt
 * itself writes its limit (`1,000`); anything else (`1,5`, `1.000`, `10k`) is undefined, asked again.
 */
export function typedQuantity(value: string): number | undefined {
  const text = value.trim();
  if (!/^\d+$/.test(text) && !/^\d{1,3}(,\d{3})+$/.test(text)) return undefined;
  const n = Number(text.replaceAll(',', ''));
  return n >= 1 && n <= MAX_QUANTITY ? n : undefined;
}

/** `~` and `~/…` as a shell would read them (a prompt is no shell: a review's `~/codes.csv` was a folder named `~`). */
function homePath(path: string): string {
  if (path === '~') return homedir();
  return path.startsWith('~/') ? join(homedir(), path.slice(2)) : path;
}
