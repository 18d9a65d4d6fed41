// The file format of a chart, from the extension of the file it is written to: what a paper's
// build takes (PDF for LaTeX, PNG for slides and web pages, SVG for both).
#pragma once

#include <string>

namespace simgpt {

enum class FigureFormat { svg, pdf, png };

// The format `path`'s extension names (.svg, .pdf, .png, in any case). Throws InputError naming
// `option` and the valid extensions for any other (fig.jpg, a name without one): a figure
// written in a format other than its name says would not open.
FigureFormat figure_format(const std::string& path, const std::string& option);

// The figure as `format` wants it after gnuplot wrote it: a PDF's /CreationDate, the one field
// that differs between two runs (cairo 1.16 writes the clock's time and ignores
// SOURCE_DATE_EPOCH), is overwritten with spaces, so that the same chart gives the same bytes and
// the file's offsets stay as they were. SVG and PNG are returned as they are.
std::string reproducible_figure(std::string figure, FigureFormat format);

} // namespace simgpt
