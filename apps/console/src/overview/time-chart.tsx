/**
 * A line chart over time drawn by uPlot (small, canvas, fast on thousands of points). Loaded lazily by the
 * overview so uPlot stays out of the console's first-load JavaScript. Times are shown in UTC like every other
 * time in the console. The canvas is decorative to assistive technology: its figure carries the same numbers
 * as a table.
 */
import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { ChartData } from "./metrics.ts";

const HEIGHT = 180;
const COLORS = ["#0550ae", "#bc4c00", "#1a7f37", "#a40e26", "#8250df", "#6e4c00", "#bf3989", "#57606a"];

const utcTick = (seconds: number, index: number, ticks: number[]) => {
  const iso = new Date(seconds * 1000).toISOString();
  const previous = index > 0 ? new Date((ticks[index - 1] as number) * 1000).toISOString() : "";
  const time = iso.slice(11, 16);
  return previous.slice(0, 10) === iso.slice(0, 10) ? time : `${time}\n${iso.slice(5, 10)}`;
};

export interface TimeChartProps {
  data: ChartData;
  format: (value: number) => string;
}

export default function TimeChart({ data, format }: TimeChartProps) {
  const host = useRef<HTMLDivElement>(null);
  // The parent recomputes the series at each render: redraw only when the numbers change.
  const numbers = JSON.stringify(data);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `numbers` stands for `data`
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const options: uPlot.Options = {
      width: element.clientWidth,
      height: HEIGHT,
      tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), "Etc/UTC"),
      scales: { x: { time: true } },
      series: [
        {},
        ...data.series.map((series, index) => ({
          label: series.label,
          stroke: COLORS[index % COLORS.length],
          width: 1.5,
          spanGaps: false,
          value: (_plot: uPlot, value: number | null) => (value === null ? "–" : format(value)),
        })),
      ],
      // UTC in the console's 24-hour form, the date only on a day's first tick.
      axes: [
        { values: (_plot, ticks) => ticks.map(utcTick), space: 60 },
        { size: 70, values: (_plot, values) => values.map((value) => format(value)) },
      ],
    };
    const plot = new uPlot(options, [data.x, ...data.series.map((series) => series.values)], element);
    const observer = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height: HEIGHT }));
    observer.observe(element);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [numbers, format]);
  return <div ref={host} className="chart-canvas" aria-hidden="true" />;
}
