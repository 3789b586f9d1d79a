#include "host/report/plots.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "common/fs.h"
#include "common/strings.h"
#include "host/util/format.h"
#include "host/util/subprocess.h"

namespace ktune::host {
namespace {

// A number for gnuplot's data: 9 significant digits.
std::string Num(double v) {
  return FormatWith("%.9g", v);
}

// A gnuplot single-quoted string ('' is a quote; a line break would end the command).
std::string Quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "''";
    } else {
      out += c == '\n' || c == '\r' ? ' ' : c;
    }
  }
  return out + "'";
}

std::string FileStem(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-') ? c : '_';
  return out;
}

// Times are plotted in the unit the slowest ranked variant reads best in.
TimeDisplay Display(const Analysis& a) {
  return DisplayFor(a.ranking.empty() ? 0 : a.ranking.back().median, a.time_unit);
}
double Scale(const Analysis& a) {
  return Display(a).per_unit;
}
std::string AxisTitle(const Analysis& a) {
  return a.time_name + " (" + Display(a).name + ")";
}

const char* kCommon =
    "set datafile separator '\\t'\n"
    "set grid ytics lc rgb '#dddddd'\n"
    "set border 3\n"
    "set tics nomirror\n";

Plot TimeByVariant(const Analysis& a, const RunReport& report) {
  Plot p;
  p.name = "time_by_variant";
  p.title = a.time_name + " of each variant, fastest first (bars: 95% CI of the median)";
  const double scale = Scale(a);
  for (size_t i = 0; i < a.ranking.size(); ++i) {
    const RankedVariant& rv = a.ranking[i];
    const double lo = rv.ci ? rv.ci->low : rv.median, hi = rv.ci ? rv.ci->high : rv.median;
    p.data += std::to_string(i) + "\t" + VariantLabel(report.variants[rv.variant]) + "\t" +
              Num(rv.median * scale) + "\t" + Num(lo * scale) + "\t" + Num(hi * scale) + "\n";
  }
  p.script =
      std::string(kCommon) + "set title " + Quoted(p.title) + " noenhanced\n" + "set ylabel " +
      Quoted(AxisTitle(a)) + " noenhanced\n" +
      "set xtics rotate by -60 noenhanced font ',8'\n"
      "set yrange [0:*]\n"
      "set style fill solid 0.7 border -1\n"
      "set boxwidth 0.7\n"
      "plot 'time_by_variant.dat' using 1:3:xtic(2) with boxes lc rgb '#4a7ab5' notitle, \\\n"
      "     '' using 1:3:4:5 with yerrorbars lc rgb '#222222' pt -1 notitle\n";
  return p;
}

Plot TimeVsCounter(const Analysis& a, const RunReport& report, const CounterCorrelation& c,
                   const std::string& name) {
  Plot p;
  p.name = name;
  p.title = a.time_name + " against " + c.name + " (Spearman r " +
            FormatCorrelation(c.spearman->r) + ", one point per variant)";
  const double scale = Scale(a);
  for (const RankedVariant& rv : a.ranking) {
    const VariantSummary& v = report.variants[rv.variant];
    std::optional<double> x;
    if (c.metric) {
      for (const MetricSummary& m : v.metrics) {
        if (m.name == c.name) x = m.value;
      }
    } else if (const ValueSummary* s = v.Find(c.name); s && Usable(s->status)) {
      x = s->median;
    }
    if (x) p.data += VariantLabel(v) + "\t" + Num(*x) + "\t" + Num(rv.median * scale) + "\n";
  }
  p.script = std::string(kCommon) + "set title " + Quoted(p.title) + " noenhanced\n" +
             "set xlabel " + Quoted(c.name) + " noenhanced\n" + "set ylabel " +
             Quoted(AxisTitle(a)) + " noenhanced\n" + "plot " + Quoted(p.name + ".dat") +
             " using 2:3 with points pt 7 ps 1.2 lc rgb '#4a7ab5' notitle\n";
  return p;
}

// The roofline ("roofline"): log-log, FLOP/byte across and GFLOP/s up; each memory level's
// bandwidth slope up to the precision's compute peak, labelled; each variant a point, the winner
// (the first of the ranking) marked. Empty data without ceilings or a placed variant.
Plot RooflinePlot(const Analysis& a, const RunReport& report) {
  Plot p;
  p.name = "roofline";
  p.title = "roofline: each variant under the board's ceilings (" + a.precision + ")";
  if (!a.ceilings) return p;
  const std::optional<ComputeCeiling> peak = PeakOf(*a.ceilings, a.precision);
  double low = 1e300, high = 0;
  for (const Placement& pl : a.roofline) {
    if (!pl.intensity || !pl.gflops) continue;
    p.data += Num(*pl.intensity) + "\t" + Num(*pl.gflops) + "\t" +
              VariantLabel(report.variants[pl.variant]) + "\n";
    low = std::min(low, *pl.intensity);
    high = std::max(high, *pl.intensity);
  }
  if (p.data.empty() || !peak) {
    p.data.clear();
    return p;
  }
  std::string functions, curves;
  for (size_t i = 0; i < a.ceilings->memory.size(); ++i) {
    const MemoryCeiling& m = a.ceilings->memory[i];
    const std::string f = "f" + std::to_string(i);
    const double ridge = peak->gflops / m.gbytes_s;
    low = std::min(low, ridge);
    high = std::max(high, ridge);
    functions += f + "(x) = (x * " + Num(m.gbytes_s) + " < P) ? x * " + Num(m.gbytes_s) + " : P\n";
    curves += f + "(x) with lines lw 2 title " +
              Quoted(m.level + " " + FormatNumber(m.gbytes_s) + " GB/s") + ", ";
  }
  p.script = std::string(kCommon) + "set title " + Quoted(p.title) + " noenhanced\n" +
             "set logscale xy\nset xlabel 'arithmetic intensity (FLOP/byte)'\n" +
             "set ylabel 'GFLOP/s'\nset key left top noenhanced\n" + "set xrange [" + Num(low / 4) +
             ":" + Num(high * 4) + "]\n" + "P = " + Num(peak->gflops) + "\n" + functions + "plot " +
             curves + "P with lines dt 2 lc rgb '#888888' title " +
             Quoted(peak->name + " " + FormatNumber(peak->gflops) + " GFLOP/s") + ", \\\n" +
             "     'roofline.dat' using 1:2 with points pt 7 ps 1.2 lc rgb '#4a7ab5' title "
             "'variants', \\\n" +
             "     '' every ::0::0 using 1:2 with points pt 6 ps 2.5 lw 2 lc rgb '#c0392b' "
             "title 'winner'\n";
  return p;
}

// Levels of a parameter in numeric order when they are numbers.
std::vector<std::string> Levels(const Analysis& a, const std::string& param) {
  for (const ParamEffect& e : a.effects) {
    if (e.param != param) continue;
    std::vector<std::string> out;
    for (const ParamLevel& l : e.levels) out.push_back(l.value);
    return out;
  }
  return {};
}

std::string Tics(const std::vector<std::string>& levels) {
  std::vector<std::string> tics;
  for (size_t i = 0; i < levels.size(); ++i) {
    tics.push_back(Quoted(levels[i]) + " " + std::to_string(i));
  }
  return "(" + Join(tics, ", ") + ")";
}

Plot HeatMap(const Analysis& a, const RunReport& report, const std::string& px,
             const std::string& py) {
  Plot p;
  p.name = "heatmap_" + FileStem(px) + "_" + FileStem(py);
  p.title = "median " + a.time_name + " by " + px + " and " + py;
  const std::vector<std::string> xs = Levels(a, px), ys = Levels(a, py);
  std::map<std::pair<size_t, size_t>, std::vector<double>> cells;
  for (const RankedVariant& rv : a.ranking) {
    std::optional<size_t> xi, yi;
    for (const auto& [k, value] : report.variants[rv.variant].params) {
      if (k == px) xi = std::find(xs.begin(), xs.end(), value) - xs.begin();
      if (k == py) yi = std::find(ys.begin(), ys.end(), value) - ys.begin();
    }
    if (xi && yi) cells[{*xi, *yi}].push_back(rv.median * Scale(a));
  }
  for (const auto& [xy, medians] : cells) {
    p.data += std::to_string(xy.first) + "\t" + std::to_string(xy.second) + "\t" +
              Num(*Median(medians)) + "\n";
  }
  const std::string nx = std::to_string(xs.size()), ny = std::to_string(ys.size());
  p.script = std::string(kCommon) + "set title " + Quoted(p.title) + " noenhanced\n" +
             "set xlabel " + Quoted(px) + " noenhanced\n" + "set ylabel " + Quoted(py) +
             " noenhanced\n" + "set cblabel " + Quoted(AxisTitle(a)) + " noenhanced\n" +
             "set xtics " + Tics(xs) + "\n" + "set ytics " + Tics(ys) + "\n" +
             "set xrange [-0.5:" + nx + "-0.5]\nset yrange [-0.5:" + ny + "-0.5]\n" +
             "set grid noytics\n"
             "set palette defined (0 '#1a9850', 1 '#fee08b', 2 '#d73027')\n"
             "plot " +
             Quoted(p.name + ".dat") +
             " using 1:2:(0.5):(0.5):3 with boxxyerror fs solid 1.0 noborder fc palette "
             "notitle, \\\n     '' using 1:2:(sprintf('%.3g', $3)) with labels notitle\n";
  return p;
}

}  // namespace

Plot ShapesHeatMap(const AcrossShapes& x, size_t rows) {
  Plot p;
  p.name = "shapes_heatmap";
  p.title = "time relative to each shape's fastest";
  std::vector<size_t> order;  // configurations, top row first
  for (size_t c = 0; c < x.configs.size(); ++c) {
    if (x.geomean[c]) order.push_back(c);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return *x.geomean[a] < *x.geomean[b]; });
  if (order.size() > rows) order.resize(rows);
  for (const auto& w : x.winners) {
    if (w && std::find(order.begin(), order.end(), w->config) == order.end()) {
      order.push_back(w->config);
    }
  }
  if (order.empty()) return p;
  std::vector<std::string> shapes, configs;
  for (const Params& s : x.shapes) shapes.push_back(ShapeLabel(s));
  for (size_t c : order) {
    std::vector<std::string> values;
    for (const auto& [name, value] : x.configs[c]) values.push_back(value);
    configs.push_back(Join(values, "_"));
  }
  for (size_t row = 0; row < order.size(); ++row) {
    for (size_t s = 0; s < x.shapes.size(); ++s) {
      // Top row first: gnuplot's y grows upwards.
      if (const auto& r = x.relative[order[row]][s]) {
        p.data += std::to_string(s) + "\t" + std::to_string(order.size() - 1 - row) + "\t" +
                  Num(*r) + "\n";
      }
    }
  }
  std::vector<std::string> ylevels(configs.rbegin(), configs.rend());
  const std::string nx = std::to_string(shapes.size()), ny = std::to_string(order.size());
  p.script = std::string(kCommon) + "set title " + Quoted(p.title) + " noenhanced\n" +
             "set xlabel 'shape'\nset ylabel " + Quoted(Join(x.param_names, "_")) +
             " noenhanced\n" + "set cblabel 'time / fastest at the shape'\n" + "set xtics " +
             Tics(shapes) + " rotate by -20 noenhanced\n" + "set ytics " + Tics(ylevels) +
             " noenhanced\n" + "set xrange [-0.5:" + nx + "-0.5]\nset yrange [-0.5:" + ny +
             "-0.5]\n" + "set grid noytics\n" +
             "set palette defined (0 '#1a9850', 1 '#fee08b', 2 '#d73027')\n"
             "set cbrange [1:*]\n"
             "plot " +
             Quoted(p.name + ".dat") +
             " using 1:2:(0.5):(0.5):3 with boxxyerror fs solid 1.0 noborder fc palette "
             "notitle, \\\n     '' using 1:2:(sprintf('%.2f', $3)) with labels notitle\n";
  return p;
}

Plot ConvergencePlot(const std::vector<SearchSeries>& searches) {
  Plot p;
  p.name = "convergence";
  p.title = "best time so far against evaluations";
  std::vector<std::string> lines;
  size_t block = 0;
  for (const SearchSeries& s : searches) {
    const std::vector<double> best = BestSoFar(s.evaluations);
    std::string data;
    for (size_t i = 0; i < best.size(); ++i) {
      if (std::isfinite(best[i])) data += std::to_string(i + 1) + "\t" + Num(best[i] / 1e6) + "\n";
    }
    if (data.empty()) continue;
    // Blocks of gnuplot data are separated by two blank lines and picked with `index`.
    p.data += (block ? "\n\n" : "") + data;
    lines.push_back(std::string(lines.empty() ? "plot " : "     ") + "'convergence.dat' index " +
                    std::to_string(block++) + " using 1:2 with steps lw 2 title " +
                    Quoted(s.label + " (" + s.id + ")"));
  }
  p.script = std::string(kCommon) + "set title " + Quoted(p.title) + " noenhanced\n" +
             "set xlabel 'evaluations'\nset ylabel 'best time so far (ms)'\n" +
             "set key top right noenhanced\n" + Join(lines, ", \\\n") + "\n";
  return p;
}

Plot HistoryPlot(const History& h) {
  Plot p;
  p.name = "history";
  p.title = "median time run after run (bars: 95% CI of the median)";
  std::map<std::string, size_t> index;  // run -> its place among the runs
  std::string best;
  for (const HistoryStep& s : h.best_steps) {
    index[s.point.run_id] = index.size() + 1;
    best += std::to_string(index.size()) + "\t" + Num(s.point.median_ns / 1e6) + "\n";
  }
  std::string followed;
  for (const HistoryStep& s : h.config_steps) {
    const HistoryPoint& q = s.point;
    followed += std::to_string(index[q.run_id]) + "\t" + Num(q.median_ns / 1e6) + "\t" +
                Num(q.ci_low_ns.value_or(q.median_ns) / 1e6) + "\t" +
                Num(q.ci_high_ns.value_or(q.median_ns) / 1e6) + "\n";
  }
  if (best.empty() || followed.empty()) return p;
  p.data = followed + "\n\n" + best;
  p.script = std::string(kCommon) + "set title " + Quoted(p.title) + " noenhanced\n" +
             "set xlabel 'run (oldest first)'\nset ylabel 'median time (ms)'\n" +
             "set xtics 1\nset offsets graph 0.03, graph 0.03, 0, 0\n" +
             "set key top right noenhanced\n" +
             "plot 'history.dat' index 0 using 1:2:3:4 with yerrorlines lw 2 title " +
             Quoted(h.config) + ", \\\n     'history.dat' index 1 using 1:2 with linespoints " +
             "lw 1 dt 2 title 'the best of each run'\n";
  return p;
}

Result<std::vector<Plot>> PlanPlots(const Analysis& a, const RunReport& report,
                                    const PlotOptions& options) {
  std::vector<Plot> plots;
  if (a.ranking.empty()) return plots;
  plots.push_back(TimeByVariant(a, report));
  size_t scatters = 0;
  for (const CounterCorrelation& c : a.correlations) {
    if (scatters == options.counters) break;
    if (!c.spearman) continue;
    // Names may differ only in characters a file name does not keep ("x:u", "x_u").
    const std::string stem = "time_vs_" + FileStem(c.name);
    std::string name = stem;
    for (int n = 2;
         std::any_of(plots.begin(), plots.end(), [&](const Plot& q) { return q.name == name; });
         ++n) {
      name = stem + "_" + std::to_string(n);
    }
    Plot p = TimeVsCounter(a, report, c, name);
    plots.push_back(std::move(p));
    ++scatters;
  }
  std::string px = options.heat_x, py = options.heat_y;
  for (const std::string& p : {px, py}) {
    if (!p.empty() &&
        std::find(a.param_names.begin(), a.param_names.end(), p) == a.param_names.end()) {
      return InvalidArgument("--heatmap: " + p + " is not a parameter of run " + a.run_id);
    }
  }
  if (px.empty() && a.param_names.size() >= 2) {
    px = a.param_names[0];
    py = a.param_names[1];
  }
  if (!px.empty() && px != py && Levels(a, px).size() >= 2 && Levels(a, py).size() >= 2) {
    plots.push_back(HeatMap(a, report, px, py));
  }
  if (Plot roof = RooflinePlot(a, report); !roof.data.empty()) plots.push_back(std::move(roof));
  return plots;
}

Status DrawPlots(const std::vector<Plot>& plots, const std::string& dir) {
  if (plots.empty()) return Status::Ok();
  if (FindInPath("gnuplot").empty()) {
    return NotFound("gnuplot is not installed (Debian package gnuplot-nox): no plots");
  }
  KT_RETURN_IF_ERROR(MakeDirs(dir));
  for (const Plot& p : plots) {
    KT_RETURN_IF_ERROR(WriteFileAtomic(dir + "/" + p.name + ".dat", p.data));
    KT_RETURN_IF_ERROR(WriteFileAtomic(dir + "/" + p.name + ".gp", p.script));
    for (const char* terminal :
         {"pngcairo size 1000,600 font 'sans,10'", "svg size 1000,600 dynamic font 'sans,10'"}) {
      const std::string ext = std::string(terminal).starts_with("png") ? "png" : "svg";
      const std::string setup =
          std::string("set terminal ") + terminal + "; set output " + Quoted(p.name + "." + ext);
      ToolOptions opts;
      opts.cwd = dir;
      opts.timeout_seconds = 60;
      KT_ASSIGN_OR_RETURN(ToolRun run, RunTool({"gnuplot", "-e", setup, p.name + ".gp"}, opts));
      if (run.exit_code != 0) {
        return InternalError("gnuplot failed on " + dir + "/" + p.name +
                             ".gp: " + LastLines(run.output, 5));
      }
    }
  }
  return Status::Ok();
}

}  // namespace ktune::host
