import * as vscode from 'vscode';
import type { LabSession } from '../auth/labSession';
import { Commands, ContextKeys, Views } from '../constants';
import { LabTreeProvider } from './labTreeProvider';
import { MessageNode, SampleNode, localTime, pagedChildren, type LabNode } from './nodes';

/** Samples, newest first, a page at a time, optionally received since a date. */
export class SamplesTreeProvider extends LabTreeProvider {
  private receivedSince?: string;

  constructor(session: LabSession) {
    super(session, Views.samples);
  }

  get currentReceivedSince(): string | undefined {
    return this.receivedSince;
  }

  async setReceivedSince(receivedSince: string | undefined): Promise<void> {
    this.forgetLists('samples:');
    this.receivedSince = receivedSince;
    await vscode.commands.executeCommand('setContext', ContextKeys.samplesFiltered, receivedSince !== undefined);
    this.redraw();
  }

  protected async roots(): Promise<LabNode[]> {
    const receivedSince = this.receivedSince;
    const list = this.list(`samples:${receivedSince ?? ''}`, (api, page) => api.listSamples({ receivedSince, page }), (sample) => sample.id ?? JSON.stringify(sample.raw));
    const nodes: LabNode[] = [];
    if (receivedSince) {
      nodes.push(new MessageNode('samples/filter', `Filtered by: received since ${localTime(receivedSince)}`, 'filter', { command: Commands.clearSamplesFilter, title: 'Clear Filter' }, 'Click to clear the filter.'));
    }
    const empty = receivedSince ? `No samples received since ${localTime(receivedSince)}` : 'No samples in your access scope';
    nodes.push(...(await pagedChildren('samples', list, (sample, index) => new SampleNode(sample, 'samples', index), empty, 'samples')));
    return nodes;
  }
}
