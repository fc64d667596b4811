/**
 * Deterministic, realistic demo data for the mock lab: clients, projects/locations/work orders,
 * reports over two years, and samples. The same seed and options always give the same data.
 */

export interface MockClient {
  client_id: string;
  name: string;
  status: 'active' | 'inactive';
  updated_at: string;
  city: string;
  account_manager: string;
}

export interface MockProject {
  project_id: string;
  client_id: string;
  name: string;
  kind: 'project' | 'location' | 'work_order';
  status: 'active' | 'inactive' | 'completed';
  updated_at: string;
  site_address: string;
}

export interface MockSample {
  sample_id: string;
  client_id: string;
  project_id: string;
  sample_name: string;
  matrix: string;
  collected_at: string;
  received_at: string;
  status: string;
  analyses: string[];
  container: string;
  temperature_c: number;
  updated_at: string;
}

export interface MockReport {
  report_id: string;
  report_type: string;
  sample_ids: string[];
  published_at: string;
  status: string;
  download_available: boolean;
  client_id: string;
  project_id: string;
  title: string;
  revision: number;
  updated_at: string;
  lab_name: string;
  /** On an amendment published by the mock's control request: the revision it replaces. */
  replaces?: { report_id: string; revision: number };
}

export interface MockDataOptions {
  readonly seed?: number;
  readonly reports?: number;
  readonly samples?: number;
  /** The moment data ends at; defaults to the start of the current UTC day. */
  readonly now?: Date;
}

export interface MockData {
  readonly clients: readonly MockClient[];
  readonly projects: readonly MockProject[];
  /** Every report, newest first, including ones that are not published (never served). */
  readonly reports: readonly MockReport[];
  readonly samples: readonly MockSample[];
  readonly now: Date;
}

/** Statuses a customer may see (spec 3: "published" or another approved customer-facing status). */
export const VISIBLE_REPORT_STATUSES = ['published', 'amended'];
export const HIDDEN_REPORT_STATUSES = ['draft', 'retracted'];

/** mulberry32: a tiny, fast, seedable PRNG. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CLIENTS: ReadonlyArray<[string, string]> = [
  ['Riverside Water Authority', 'Riverside'],
  ['Northfield Agronomy Cooperative', 'Northfield'],
  ['Harbor Environmental Consulting', 'Port Harbor'],
  ['Cedar Valley Brewing Company', 'Cedar Valley'],
  ['Summit Mining & Minerals', 'Summit'],
  ['Lakeshore Municipal Utilities', 'Lakeshore'],
  ['Greenway Food Processing', 'Greenway'],
];

const PROJECTS: ReadonlyArray<[number, string, MockProject['kind']]> = [
  [0, 'Well Field Compliance Monitoring', 'project'],
  [0, 'Treatment Plant Effluent', 'location'],
  [0, 'Reservoir Algae Survey', 'project'],
  [1, 'Soil Fertility Program 2025', 'project'],
  [1, 'Grain Mycotoxin Screening', 'work_order'],
  [2, 'Former Fuel Depot Remediation', 'project'],
  [2, 'Stormwater Outfall 12', 'location'],
  [2, 'Harbor Sediment Characterisation', 'project'],
  [3, 'Brewhouse Water Quality', 'location'],
  [3, 'Finished Product Release Testing', 'work_order'],
  [4, 'Tailings Pond Seepage', 'location'],
  [4, 'Ore Assay Batches', 'work_order'],
  [5, 'Lead and Copper Rule Sampling', 'project'],
  [5, 'Distribution System Bacteriology', 'location'],
  [6, 'Allergen Verification', 'work_order'],
  [6, 'Environmental Monitoring Swabs', 'location'],
];

const MATRICES: Record<number, readonly string[]> = {
  0: ['Groundwater', 'Drinking Water', 'Surface Water'],
  1: ['Soil', 'Grain', 'Plant Tissue'],
  2: ['Soil', 'Groundwater', 'Sediment', 'Stormwater'],
  3: ['Process Water', 'Beer', 'Wort'],
  4: ['Rock', 'Tailings', 'Groundwater'],
  5: ['Drinking Water'],
  6: ['Food Product', 'Environmental Swab'],
};

const ANALYSES: Record<string, readonly string[]> = {
  Groundwater: ['pH', 'Nitrate', 'Arsenic', 'BTEX', 'Total Dissolved Solids'],
  'Drinking Water': ['Lead', 'Copper', 'Total Coliform', 'E. coli', 'Chlorine Residual'],
  'Surface Water': ['Chlorophyll a', 'Total Phosphorus', 'Turbidity', 'Microcystin'],
  Soil: ['pH', 'Organic Matter', 'Nitrogen', 'Phosphorus', 'TPH', 'Lead'],
  Grain: ['Aflatoxin', 'Deoxynivalenol', 'Moisture'],
  'Plant Tissue': ['Nitrogen', 'Potassium', 'Zinc'],
  Sediment: ['PAHs', 'PCBs', 'Mercury', 'Grain Size'],
  Stormwater: ['Total Suspended Solids', 'Oil and Grease', 'Zinc'],
  'Process Water': ['Hardness', 'Alkalinity', 'Chloride'],
  Beer: ['Alcohol by Volume', 'Bitterness Units', 'Microbial Stability'],
  Wort: ['Original Gravity', 'Color'],
  Rock: ['Gold Fire Assay', 'Copper', 'Silver'],
  Tailings: ['Cyanide', 'Sulfate', 'Acid Base Accounting'],
  'Food Product': ['Peanut Allergen', 'Gluten', 'Listeria'],
  'Environmental Swab': ['Listeria', 'ATP'],
};

const REPORT_TYPES: ReadonlyArray<[string, number]> = [
  ['Certificate of Analysis', 0.62],
  ['Preliminary Results', 0.12],
  ['QC Summary', 0.1],
  ['Chain of Custody Summary', 0.08],
  ['Field Data Report', 0.08],
];

const MANAGERS = ['A. Okafor', 'M. Lindqvist', 'R. Patel', 'J. Moreno', 'S. Nakamura'];
const DAY = 86_400_000;

function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function weighted(random: () => number, items: ReadonlyArray<[string, number]>): string {
  let roll = random();
  for (const [item, weight] of items) {
    roll -= weight;
    if (roll <= 0) {
      return item;
    }
  }
  return items[items.length - 1]![0];
}

/** Generates the data set; fast enough for 50,000 reports and 100,000 samples. */
export function generateMockData(options: MockDataOptions = {}): MockData {
  const random = seededRandom(options.seed ?? 20240501);
  const now = options.now ?? new Date(Math.floor(Date.now() / DAY) * DAY);
  const end = now.getTime();
  const start = end - 730 * DAY;
  const reportCount = options.reports ?? 420;
  const sampleCount = options.samples ?? 3200;

  const clients: MockClient[] = CLIENTS.map(([name, city], index) => ({
    client_id: `C-${1001 + index}`,
    name,
    status: index === 6 ? 'inactive' : 'active',
    updated_at: iso(start + Math.floor(random() * 700) * DAY),
    city,
    account_manager: pick(random, MANAGERS),
  }));

  const projects: MockProject[] = PROJECTS.map(([clientIndex, name, kind], index) => ({
    project_id: `${kind === 'work_order' ? 'WO' : kind === 'location' ? 'LOC' : 'P'}-${2001 + index}`,
    client_id: clients[clientIndex]!.client_id,
    name,
    kind,
    status: index % 7 === 6 ? 'completed' : 'active',
    updated_at: iso(start + Math.floor(random() * 720) * DAY),
    site_address: `${100 + Math.floor(random() * 900)} ${pick(random, ['Mill', 'River', 'Quarry', 'Harbor', 'Station'])} Road, ${CLIENTS[clientIndex]![1]}`,
  }));

  const samples: MockSample[] = [];
  for (let i = 0; i < sampleCount; i++) {
    const projectIndex = Math.floor(random() * projects.length);
    const project = projects[projectIndex]!;
    const clientIndex = PROJECTS[projectIndex]![0];
    const matrix = pick(random, MATRICES[clientIndex]!);
    const collected = start + random() * (end - start - DAY);
    const received = collected + (2 + random() * 46) * 3_600_000;
    const available = ANALYSES[matrix]!;
    const analyses = available.filter(() => random() < 0.55);
    samples.push({
      sample_id: '',
      client_id: project.client_id,
      project_id: project.project_id,
      sample_name: `${pick(random, ['MW', 'SW', 'SB', 'TAP', 'LOT', 'SWAB', 'OUT'])}-${1 + Math.floor(random() * 40)} ${matrix}`,
      matrix,
      collected_at: iso(collected),
      received_at: iso(Math.min(received, end)),
      status: received > end - 10 * DAY ? pick(random, ['received', 'in_analysis']) : 'reported',
      analyses: analyses.length > 0 ? analyses : [available[0]!],
      container: pick(random, [
        '250 mL HDPE',
        '1 L amber glass',
        '40 mL VOA vial',
        'Sterile bag',
        'Whirl-Pak',
      ]),
      temperature_c: Math.round((1 + random() * 5) * 10) / 10,
      updated_at: iso(Math.min(received + random() * 10 * DAY, end)),
    });
  }
  samples.sort((a, b) => b.received_at.localeCompare(a.received_at));
  samples.forEach((sample, index) => {
    sample.sample_id = `S-${String(sampleCount - index).padStart(6, '0')}`;
  });

  // Each project's samples, oldest received first, with their times, so a report can pick samples
  // received before it was published by binary search (fast at 100,000 samples).
  const samplesByProject = new Map<string, { samples: MockSample[]; times: number[] }>();
  for (const sample of [...samples].reverse()) {
    const entry = samplesByProject.get(sample.project_id) ?? { samples: [], times: [] };
    entry.samples.push(sample);
    entry.times.push(Date.parse(sample.received_at));
    samplesByProject.set(sample.project_id, entry);
  }

  const reports: MockReport[] = [];
  for (let i = 0; i < reportCount; i++) {
    const project = projects[Math.floor(random() * projects.length)]!;
    const published = start + random() * (end - start);
    const entry = samplesByProject.get(project.project_id) ?? { samples: [], times: [] };
    let low = 0;
    let high = entry.times.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (entry.times[middle]! <= published) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    const poolSize = low > 0 ? low : entry.samples.length;
    const sampleIds = new Set<string>();
    const wanted = 1 + Math.floor(random() * 5);
    for (let k = 0; k < wanted && poolSize > 0; k++) {
      sampleIds.add(entry.samples[Math.floor(random() * poolSize)]!.sample_id);
    }
    const roll = random();
    const status =
      roll < 0.05 ? 'draft' : roll < 0.08 ? 'retracted' : roll < 0.15 ? 'amended' : 'published';
    const reportType = weighted(random, REPORT_TYPES);
    reports.push({
      report_id: '',
      report_type: reportType,
      sample_ids: [...sampleIds].sort(),
      published_at: iso(published),
      status,
      download_available: random() >= 0.08,
      client_id: project.client_id,
      project_id: project.project_id,
      title: `${reportType}: ${project.name}`,
      revision: status === 'amended' ? 2 : 1,
      updated_at: iso(Math.min(published + (status === 'amended' ? random() * 20 * DAY : 0), end)),
      lab_name: 'Meridian Analytical Laboratories',
    });
  }
  reports.sort((a, b) => b.published_at.localeCompare(a.published_at));
  reports.forEach((report, index) => {
    const year = report.published_at.slice(0, 4);
    report.report_id = `RPT-${year}-${String(reportCount - index).padStart(6, '0')}`;
  });
  return { clients, projects, reports, samples, now };
}
