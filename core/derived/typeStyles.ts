import { OTHER } from './overview';

/** How many colours and patterns the overview's palette has (the webview draws them from the theme). */
export const STYLE_COUNT = 8;

/**
 * How a report type is drawn: a colour and a pattern, each an index into the webview's lists.
 * Colour and pattern together tell types apart, so no one needs to tell colours apart.
 */
export interface TypeStyle {
  readonly colour: number;
  readonly pattern: number;
}

/** "Other" is always drawn the same: the last colour (the theme's neutral one) and the last pattern. */
export const OTHER_STYLE: TypeStyle = { colour: STYLE_COUNT - 1, pattern: STYLE_COUNT - 1 };

/**
 * The style of the `slot`-th type seen: the first seven take the seven non-neutral colours, each
 * with its own pattern (the first plain); later ones go round the colours again, each time with
 * the next pattern, so two types share a colour and pattern only after 7 × 8 of them.
 */
export function styleOfSlot(slot: number): TypeStyle {
  const colours = STYLE_COUNT - 1;
  const colour = slot % colours;
  return { colour, pattern: (colour + Math.floor(slot / colours)) % STYLE_COUNT };
}

/**
 * Gives each report type a style once and keeps it: a type keeps its colour and pattern whatever
 * the filter (one per lab, for the session). New types take the next slot, in the order given
 * (the overview's most frequent first), so the first chart gets the first colours.
 */
export class TypeStyles {
  private readonly slots = new Map<string, number>();

  /** The styles of `types`, assigning new slots to types not seen before. */
  of(types: readonly string[]): Record<string, TypeStyle> {
    return Object.fromEntries(
      types.map((type) => {
        if (type === OTHER) {
          return [type, OTHER_STYLE];
        }
        let slot = this.slots.get(type);
        if (slot === undefined) {
          slot = this.slots.size;
          this.slots.set(type, slot);
        }
        return [type, styleOfSlot(slot)];
      }),
    );
  }
}
