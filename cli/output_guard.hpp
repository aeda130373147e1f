#pragma once
// Outputs never destroy inputs: `limiter report run.csv -o run.csv` is refused before anything is read.
#include <string>
#include <vector>

namespace limiter::cli {

// Throws InputError (exit code 2) when OUTPUT, a file the command is about to write ("" or "-":
// standard output), is one of INPUTS: the same file by device and inode, whatever the paths say
// ("./", "..", a symlink on either side, a hard link). A directory among INPUTS stands for itself
// and the files directly in it (a raw data set of `limiter run --save-raw` is read whole); a
// folder of a job's ranks is passed as the records it matched, so a new report beside them is fine.
// OPTION names the output in the message ("-o", "--record"). An OUTPUT that is a folder is refused
// too (refuse_folder_output).
void refuse_output_over_input(const std::string& output, const std::vector<std::string>& inputs,
                              const std::string& option = "-o");

// Throws InputError when OUTPUT names a folder: one line saying so, and a file name to give instead.
void refuse_folder_output(const std::string& output, const std::string& option = "-o");

}  // namespace limiter::cli
