// Findings by severity across a product's image versions: an ECharts stacked bar chart (tree-shaken imports).
import { BarChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent, AriaComponent } from 'echarts/components';
import { init, use, type EChartsType } from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import { useEffect, useRef } from 'react';
import { SEVERITIES } from './ui.js';
import type { SeverityCounts } from './queries.js';

use([BarChart, GridComponent, LegendComponent, TooltipComponent, AriaComponent, SVGRenderer]);

const COLORS: Record<string, string> = { critical: '#b3261e', high: '#e8710a', medium: '#c99a00', low: '#1e88e5', informational: '#78909c' };

export function TrendChart({ points, label }: { points: Array<{ name: string; counts: SeverityCounts }>; label: string }) {
  const element = useRef<HTMLDivElement>(null);
  const chart = useRef<EChartsType | undefined>(undefined);
  useEffect(() => {
    if (!element.current) return;
    const dark = matchMedia('(prefers-color-scheme: dark)').matches;
    chart.current = init(element.current, dark ? 'dark' : undefined, { renderer: 'svg' });
    const resize = () => chart.current?.resize();
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      chart.current?.dispose();
    };
  }, []);
  useEffect(() => {
    chart.current?.setOption({
      backgroundColor: 'transparent',
      aria: { enabled: true, label: { description: label } },
      tooltip: { trigger: 'axis' },
      legend: { top: 0 },
      grid: { left: 40, right: 16, top: 40, bottom: 30 },
      xAxis: { type: 'category', data: points.map((p) => p.name) },
      yAxis: { type: 'value', minInterval: 1 },
      series: SEVERITIES.map((s) => ({ name: s, type: 'bar', stack: 'findings', color: COLORS[s], data: points.map((p) => p.counts[s]) })),
    }, true);
  }, [points, label]);
  return <div ref={element} className="chart" role="img" aria-label={label} />;
}
