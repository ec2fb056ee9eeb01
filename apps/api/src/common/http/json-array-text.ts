import type { Response } from 'express';

/**
 * A bare-array list's JSON, built one item at a time as its rows arrive (database/pool.ts,
 * forEachRow): only each item's text stays alive, not the page's rows and response objects
 * together. The body is byte for byte what returning the items to Nest would send, and so are its
 * headers (`application/json; charset=utf-8`, Express's ETag).
 */
export class JsonArrayText<T> {
  private readonly items: string[] = [];

  add(item: T): void {
    this.items.push(JSON.stringify(item));
  }

  /** Marks the response as JSON and gives the text for the handler to return. */
  respond(res: Response): string {
    res.type('json');
    return `[${this.items.join(',')}]`;
  }
}
