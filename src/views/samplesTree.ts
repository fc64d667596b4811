import * as vscode from 'vscode';
import { ContextKeys, Views } from '../constants';
import type { Labs } from '../labs/labs';
import { LabTreeProvider, type LabScope } from './labTreeProvider';
import type { PagedList } from './pagedList';
import type { Sample } from '../../core/api/records';
import { FilterNode, SampleNode, localTime, pagedChildren, type LabNode } from './nodes';
import { countOf, matchCount } from '../ui/counts';

/** Samples of each lab, newest first, a page at a time, optionally received since a date (per lab). */
export class SamplesTreeProvider extends LabTreeProvider {
  private readonly receivedSince = new Map<string, string>();

  constructor(labs: Labs) {
    super(labs, Views.samples);
  }

  receivedSinceOf(lab: string): string | undefined {
    return this.receivedSince.get(lab);
  }

  /** Sets one lab's received-since filter, or every lab's when `lab` is undefined. */
  async setReceivedSince(
    lab: string | undefined,
    receivedSince: string | undefined,
  ): Promise<void> {
    this.forgetLists('samples:', lab);
    const names = lab === undefined ? [...this.receivedSince.keys()] : [lab];
    for (const name of names) {
      if (receivedSince === undefined) {
        this.receivedSince.delete(name);
      } else {
        this.receivedSince.set(name, receivedSince);
      }
    }
    await vscode.commands.executeCommand(
      'setContext',
      ContextKeys.samplesFiltered,
      this.receivedSince.size > 0,
    );
    this.redraw();
  }

  protected mainList(scope: LabScope): {
    list: PagedList<unknown>;
    count: (count: number) => string;
  } {
    const filtered = this.receivedSince.has(scope.name);
    return {
      list: this.sampleList(scope) as PagedList<unknown>,
      count: (count) => (filtered ? matchCount('sample', count) : countOf('sample', count)),
    };
  }

  private sampleList(scope: LabScope): PagedList<Sample> {
    const receivedSince = this.receivedSince.get(scope.name);
    return this.list(
      scope,
      `samples:${receivedSince ?? ''}`,
      (api, page, signal) => api.listSamples({ receivedSince, page }, signal),
      (sample) => sample.id ?? JSON.stringify(sample.raw),
    );
  }

  protected async roots(scope: LabScope): Promise<LabNode[]> {
    const receivedSince = this.receivedSince.get(scope.name);
    const list = this.sampleList(scope);
    const nodes: LabNode[] = [];
    const since = receivedSince ? (localTime(receivedSince) ?? receivedSince) : undefined;
    if (since) {
      // The first page says how many match, for the filter row.
      await list.ensureLoaded();
      const count =
        list.loaded && list.error === undefined
          ? (list.total ?? (list.hasMore ? undefined : list.items.length))
          : undefined;
      nodes.push(
        new FilterNode(
          `${scope.idPrefix}samples/filter`,
          scope.name,
          vscode.l10n.t('received since {0}', since),
          'samples',
          undefined,
          {
            count: count === undefined ? undefined : matchCount('sample', count),
          },
        ),
      );
    }
    const empty = since
      ? vscode.l10n.t('No samples received since {0}', since)
      : vscode.l10n.t('No samples in your access scope');
    nodes.push(
      ...(await pagedChildren(
        `${scope.idPrefix}samples`,
        list,
        (sample, index) => new SampleNode(sample, `${scope.idPrefix}samples`, index, scope.name),
        empty,
        'sample',
      )),
    );
    return nodes;
  }
}
