import { BadRequestException, type PipeTransform } from '@nestjs/common';
import { isTag, tagProblem, uniqueTags } from '@certkeeper/domain';

/**
 * A body that is a bare JSON array of tags (`PUT /endpoints/{id}/tags`, `PUT /me/tag-subscriptions`),
 * read into its tags with repeats kept once. `tooMany` is the route's sentence for more than `max`.
 */
export class TagListPipe implements PipeTransform<unknown, string[]> {
  constructor(
    private readonly max: number,
    private readonly tooMany: string,
  ) {}

  transform(body: unknown): string[] {
    if (!Array.isArray(body)) throw new BadRequestException('The body must be a JSON array of tags.');
    if (body.length > this.max) throw new BadRequestException(this.tooMany);
    const invalid = body.findIndex((tag) => !isTag(tag));
    if (invalid >= 0) throw new BadRequestException(tagProblem(invalid));
    return uniqueTags(body as string[]);
  }
}
