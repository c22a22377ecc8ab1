import { keepPreviousData, type QueryClient, useQueryClient } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { type ColumnDef, flexRender, getCoreRowModel, useReactTable } from "@tanstack/react-table";
import { type FormEvent, useState } from "react";
import { $api, errorMessage, type Schemas } from "../api.ts";
import { ErrorAlert } from "../forms.tsx";
import { useWorkspace } from "../layout.tsx";
import { datasetRoute } from "../router.tsx";
import { anyPending, cellText, changedValues, computedStatusText, isComputed } from "./cells.ts";
import { ColumnsPanel } from "./columns-panel.tsx";
import { ComputePanel } from "./compute-panel.tsx";
import { CsvImport } from "./csv-import.tsx";
import { DatasetDetails } from "./dataset-details.tsx";
import { SpansImport } from "./spans-import.tsx";

type Row = Schemas["DatasetRow"];
type Column = Schemas["DatasetColumn"];
const PAGE_SIZE = 50;
/** The table's data while nothing is loaded: one array for every render (a new one each time re-renders forever). */
const NO_ROWS: Row[] = [];
/** How often the rows are read again while a computed cell is pending. */
const PENDING_POLL_MS = 1000;

/** After any change: the dataset (columns, row count), its rows and the list's counts are read again. */
export async function refreshDataset(queryClient: QueryClient) {
  await Promise.all(
    ["/datasets/{datasetId}", "/datasets/{datasetId}/rows", "/datasets"].map((path) =>
      queryClient.invalidateQueries({ queryKey: ["get", path] }),
    ),
  );
}

/** One dataset: its rows as a paged table to edit, its columns, CSV import and the computation of its computed columns. */
export function DatasetEditor() {
  const { projectId, canEdit } = useWorkspace();
  const { datasetId } = datasetRoute.useParams();
  const dataset = $api.useQuery("get", "/datasets/{datasetId}", { params: { path: { datasetId } } });
  const [editingDetails, setEditingDetails] = useState(false);

  if (dataset.error) return <ErrorAlert error={dataset.error} />;
  if (!dataset.data) return <p>Loading…</p>;
  const { columns } = dataset.data;
  return (
    <section aria-labelledby="dataset-title" className="dataset">
      <p>
        <Link to="/datasets" search={{ project: projectId }}>
          ← Datasets
        </Link>
      </p>
      <h1 id="dataset-title">{dataset.data.title}</h1>
      <p className="hint">
        {dataset.data.rowCount} rows · {columns.length} columns
        {dataset.data.description && ` · ${dataset.data.description}`}
        {canEdit && !editingDetails && (
          <>
            {" "}
            <button type="button" onClick={() => setEditingDetails(true)}>
              Rename dataset
            </button>
          </>
        )}
      </p>
      {canEdit && editingDetails && (
        <DatasetDetails key={dataset.data.updatedAt} dataset={dataset.data} onClose={() => setEditingDetails(false)} />
      )}
      {canEdit && columns.some(isComputed) && <ComputePanel datasetId={datasetId} columns={columns} />}
      {/* Remounted per dataset so its page position starts at the first page. */}
      <RowsTable key={datasetId} datasetId={datasetId} columns={columns} canEdit={canEdit} />
      {canEdit && columns.length > 0 && <NewRow datasetId={datasetId} columns={columns} />}
      <ColumnsPanel datasetId={datasetId} projectId={projectId as string} columns={columns} canEdit={canEdit} />
      {canEdit && <CsvImport datasetId={datasetId} columns={columns} />}
      {canEdit && columns.length > 0 && (
        <SpansImport datasetId={datasetId} projectId={dataset.data.projectId} columns={columns} />
      )}
    </section>
  );
}

function RowsTable({ datasetId, columns, canEdit }: { datasetId: string; columns: Column[]; canEdit: boolean }) {
  const queryClient = useQueryClient();
  // Cursors of the pages before the current one: "Previous" pops, "Next" pushes.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const rows = $api.useQuery(
    "get",
    "/datasets/{datasetId}/rows",
    {
      params: {
        path: { datasetId },
        query: { sort: "createdAt:asc", limit: PAGE_SIZE, ...(cursor && { cursor }) },
      },
    },
    {
      refetchInterval: (query) => (anyPending(query.state.data?.rows) ? PENDING_POLL_MS : false),
      // The page shown stays until the next one arrives.
      placeholderData: keepPreviousData,
    },
  );
  const update = $api.useMutation("patch", "/datasets/{datasetId}/rows/{rowId}");
  const remove = $api.useMutation("delete", "/datasets/{datasetId}/rows/{rowId}");
  const [editing, setEditing] = useState<{ rowId: string; texts: Record<string, string> } | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const offset = cursors.length * PAGE_SIZE;

  async function save(row: Row) {
    if (!editing) return;
    setFailure(null);
    try {
      const values = changedValues(row, editing.texts);
      if (Object.keys(values).length > 0) {
        await update.mutateAsync({
          params: { path: { datasetId, rowId: row.id }, query: { valuesBy: "columnId" } },
          body: { values },
        });
        await refreshDataset(queryClient);
      }
      setEditing(null);
    } catch (error) {
      setFailure(errorMessage(error));
    }
  }

  async function deleteRow(row: Row, number: number) {
    if (!window.confirm(`Delete row ${number}?`)) return;
    setFailure(null);
    try {
      await remove.mutateAsync({ params: { path: { datasetId, rowId: row.id } } });
      await refreshDataset(queryClient);
    } catch (error) {
      setFailure(errorMessage(error));
    }
  }

  // Built every render: a page holds at most 50 rows, and the cells read the editing state directly.
  const tableColumns = ((): ColumnDef<Row>[] => {
    const numberColumn: ColumnDef<Row> = {
      id: "#",
      header: "#",
      cell: ({ row }) => offset + row.index + 1,
    };
    const valueColumns = columns.map(
      (column): ColumnDef<Row> => ({
        id: column.id,
        header: () => (
          <>
            {column.name} {isComputed(column) && <small className="column-type">{column.type}</small>}
          </>
        ),
        cell: ({ row }) => {
          const number = offset + row.index + 1;
          if (editing?.rowId === row.original.id) {
            return (
              <textarea
                className="cell-input"
                aria-label={`${column.name}, row ${number}`}
                value={editing.texts[column.id] ?? ""}
                rows={1}
                onChange={(event) =>
                  setEditing({ ...editing, texts: { ...editing.texts, [column.id]: event.target.value } })
                }
              />
            );
          }
          const text = cellText(row.original.values[column.id]);
          const computed = row.original.computed?.[column.id];
          return (
            <>
              <span className="cell-text" title={text}>
                {text}
              </span>
              {computed && (
                <small className={`cell-status computed-${computed.status}`}>{computedStatusText(computed)}</small>
              )}
            </>
          );
        },
      }),
    );
    if (!canEdit) return [numberColumn, ...valueColumns];
    const actionsColumn: ColumnDef<Row> = {
      id: "actions",
      header: () => <span className="sr-only">Actions</span>,
      cell: ({ row }) => {
        const number = offset + row.index + 1;
        return editing?.rowId === row.original.id ? (
          <span className="row-actions">
            <button type="button" onClick={() => void save(row.original)} disabled={update.isPending}>
              Save row {number}
            </button>
            <button type="button" onClick={() => setEditing(null)}>
              Cancel
            </button>
          </span>
        ) : (
          <span className="row-actions">
            <button
              type="button"
              aria-label={`Edit row ${number}`}
              onClick={() =>
                setEditing({
                  rowId: row.original.id,
                  texts: Object.fromEntries(columns.map((c) => [c.id, cellText(row.original.values[c.id])])),
                })
              }
            >
              Edit
            </button>
            <button
              type="button"
              aria-label={`Delete row ${number}`}
              onClick={() => void deleteRow(row.original, number)}
              disabled={remove.isPending}
            >
              Delete
            </button>
          </span>
        );
      },
    };
    return [numberColumn, ...valueColumns, actionsColumn];
  })();

  const table = useReactTable({
    data: rows.data?.rows ?? NO_ROWS,
    columns: tableColumns,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (row) => row.id,
  });
  const pagination = rows.data?.pagination;

  return (
    <div className="rows">
      {failure && (
        <p role="alert" className="error">
          {failure}
        </p>
      )}
      <ErrorAlert error={rows.error} />
      <div className="dataset-scroll">
        <table className="grid dataset-rows" aria-label="Dataset rows">
          <thead>
            {table.getHeaderGroups().map((group) => (
              <tr key={group.id}>
                {group.headers.map((header) => (
                  <th key={header.id} scope="col">
                    {flexRender(header.column.columnDef.header, header.getContext())}
                  </th>
                ))}
              </tr>
            ))}
          </thead>
          <tbody>
            {table.getRowModel().rows.map((row) => (
              <tr key={row.id}>
                {row.getVisibleCells().map((cell) => (
                  <td key={cell.id}>{flexRender(cell.column.columnDef.cell, cell.getContext())}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rows.isLoading && <p>Loading…</p>}
      {rows.data?.rows.length === 0 && cursors.length === 0 && <p className="hint">No rows yet.</p>}
      {(cursors.length > 0 || pagination?.hasMore) && (
        <nav className="pager" aria-label="Row pages">
          <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
            Previous page
          </button>
          <span>
            Rows {offset + 1}–{offset + (pagination?.returned ?? 0)}
          </span>
          <button
            type="button"
            disabled={!pagination?.nextCursor}
            onClick={() => pagination?.nextCursor && setCursors([...cursors, pagination.nextCursor])}
          >
            Next page
          </button>
        </nav>
      )}
    </div>
  );
}

/** A form with one field per column that appends a row. */
function NewRow({ datasetId, columns }: { datasetId: string; columns: Column[] }) {
  const queryClient = useQueryClient();
  const create = $api.useMutation("post", "/datasets/{datasetId}/rows");
  const [texts, setTexts] = useState<Record<string, string>>({});
  const [notice, setNotice] = useState<string | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setNotice(null);
    const values = Object.fromEntries(Object.entries(texts).filter(([, text]) => text !== ""));
    const created = await create
      .mutateAsync({ params: { path: { datasetId }, query: { valuesBy: "columnId" } }, body: { rows: [{ values }] } })
      // The refusal is shown from the mutation's error below.
      .catch(() => null);
    if (!created) return;
    await refreshDataset(queryClient);
    setTexts({});
    setNotice("Row added.");
  }

  return (
    <form className="new-row" onSubmit={submit}>
      <fieldset>
        <legend>New row</legend>
        {columns.map((column) => (
          <label key={column.id}>
            {column.name}
            <textarea
              rows={1}
              value={texts[column.id] ?? ""}
              onChange={(event) => setTexts({ ...texts, [column.id]: event.target.value })}
            />
          </label>
        ))}
        <button type="submit" disabled={create.isPending}>
          Add row
        </button>
        {notice && (
          <span role="status" className="notice">
            {notice}
          </span>
        )}
        <ErrorAlert error={create.error} />
      </fieldset>
    </form>
  );
}
