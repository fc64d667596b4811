import type { Labs } from '../labs/labs';
import type { DrawnOverview, OverviewPanels } from '../overview/overviewPanels';
import type { PromptsHolder } from '../ui/prompts';
import type { ReportsTreeProvider } from '../views/reportsTree';
import { filterFromArgs, type ReportFilterArgs } from './filters';
import { labForCommand } from './labTarget';
import { commandTargets } from '../ui/commandTargets';

/**
 * `labData.showOverview` (`{ lab?, filter?: { publishedSince?, status?, clientId?, projectId? } }`;
 * from the Reports view's toolbar, that lab's filter in the view): opens the lab's overview panel
 * and resolves with what it drew once the charts are on screen.
 */
export async function showOverview(
  labs: Labs,
  panels: OverviewPanels,
  tree: ReportsTreeProvider,
  prompts: PromptsHolder,
  ...args: unknown[]
): Promise<DrawnOverview | undefined> {
  const targets = commandTargets(args);
  const connection = await labForCommand(labs, prompts.current, targets.lab);
  const api = connection?.api;
  if (!connection || !api) {
    return undefined;
  }
  const given = targets.options.filter;
  const filter =
    targets.automated && typeof given === 'object' && given !== null
      ? filterFromArgs(given as ReportFilterArgs, api)
      : tree.filterOf(connection.lab.name);
  return panels.show(
    connection,
    Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined)),
  );
}
