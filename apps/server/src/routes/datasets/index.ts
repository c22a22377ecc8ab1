import createDataset from "./create-dataset.ts";
import createDatasetColumns from "./create-dataset-columns.ts";
import createDatasetRows from "./create-dataset-rows.ts";
import createDatasetRowsFromSpans from "./create-dataset-rows-from-spans.ts";
import deleteDataset from "./delete-dataset.ts";
import deleteDatasetColumn from "./delete-dataset-column.ts";
import deleteDatasetRow from "./delete-dataset-row.ts";
import fetchDynamicColumns from "./fetch-dynamic-columns.ts";
import getDataset from "./get-dataset.ts";
import listDatasetRows from "./list-dataset-rows.ts";
import listDatasets from "./list-datasets.ts";
import updateDataset from "./update-dataset.ts";
import updateDatasetColumn from "./update-dataset-column.ts";
import updateDatasetRow from "./update-dataset-row.ts";

/** The Datasets operations, in spec order. */
export const datasetRoutes = [
  listDatasets,
  createDataset,
  getDataset,
  updateDataset,
  deleteDataset,
  createDatasetColumns,
  updateDatasetColumn,
  deleteDatasetColumn,
  listDatasetRows,
  createDatasetRows,
  createDatasetRowsFromSpans,
  updateDatasetRow,
  deleteDatasetRow,
  fetchDynamicColumns,
];
