#include "host/report/search_report.h"

#include <doctest/doctest.h>

#include <cmath>

#include "host/report/html_report.h"
#include "host/report/plots.h"

namespace ktune::host {
namespace {

SearchSeries Series(const std::string& id, const std::string& strategy) {
  Evaluations e;
  e.comments = {"kernel k, toolchain native", "strategy " + strategy + ", seed 7, budget 4 of 9"};
  e.names = {"A", "B"};
  e.rows = {{{1, 1}, std::nullopt, "build failed", ""},
            {{2, 1}, 3e6, "ok", "r1"},
            {{3, 1}, 2e6, "ok", "r1"},
            {{1, 2}, 2.5e6, "ok", "r2"}};
  return {id, SearchLabel(id, e), e};
}

TEST_CASE("search report: label, best so far, the summary and the evaluations") {
  const SearchSeries s = Series("S1", "bayes");
  CHECK(s.label == "bayes, seed 7");
  CHECK(SearchLabel("S2", Evaluations{}) == "S2");
  const std::vector<double> best = BestSoFar(s.evaluations);
  REQUIRE(best.size() == 4);
  CHECK(std::isinf(best[0]));
  CHECK(best[1] == 3e6);
  CHECK(best[2] == 2e6);
  CHECK(best[3] == 2e6);

  const Table summary = SearchSummaryTable({s});
  REQUIRE(summary.rows.size() == 1);
  CHECK(summary.rows[0] ==
        std::vector<std::string>{"S1", "bayes, seed 7", "4", "1", "2 ms", "3", "A=3 B=1"});
  const Table all = EvaluationsTable(s);
  CHECK(all.columns == std::vector<std::string>{"#", "A", "B", "time", "status", "run"});
  REQUIRE(all.rows.size() == 4);
  CHECK(all.rows[0] == std::vector<std::string>{"1", "1", "1", "-", "build failed", ""});
  CHECK(all.rows[2] == std::vector<std::string>{"3", "3", "1", "2 ms", "ok", "r1"});
  CHECK(all.styles[2] == RowStyle::kGood);
  CHECK(all.styles[0] == RowStyle::kBad);
}

TEST_CASE("convergence plot: one step line per search that measured something") {
  SearchSeries none = Series("S0", "random");
  for (Evaluation& e : none.evaluations.rows) {
    e.time_ns.reset();
    e.status = "timeout";
  }
  const Plot p = ConvergencePlot({Series("S1", "bayes"), none, Series("S2", "anneal")});
  CHECK(p.name == "convergence");
  // From the first feasible evaluation on, in ms; blocks separated by two blank lines.
  CHECK(p.data == "2\t3\n3\t2\n4\t2\n\n\n2\t3\n3\t2\n4\t2\n");
  CHECK(p.script.find("'convergence.dat' index 0 using 1:2 with steps lw 2 title 'bayes, seed 7 "
                      "(S1)'") != std::string::npos);
  CHECK(p.script.find("index 1 using 1:2 with steps lw 2 title 'anneal, seed 7 (S2)'") !=
        std::string::npos);
  CHECK(p.script.find("S0") == std::string::npos);
  CHECK(ConvergencePlot({none}).data.empty());
}

TEST_CASE("search page: self-contained, every search's evaluations, the note without a plot") {
  const std::string html =
      RenderSearchHtml("k<1>", {Series("S1", "bayes")}, "", "No plots (--no-plots).");
  CHECK(html.find("<title>ktune k&lt;1&gt;: searches</title>") != std::string::npos);
  CHECK(html.find("No plots (--no-plots).") != std::string::npos);
  CHECK(html.find("Search S1") != std::string::npos);
  CHECK(html.find("build failed") != std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
}

}  // namespace
}  // namespace ktune::host
