# Writes OUTPUT, a C++ source defining `extern const char NAME[]` with the text of INPUT: how a
# PTX file built by nvcc gets into a library that loads it at run time (cmake -P, at build time).
file(READ "${INPUT}" text)
file(WRITE "${OUTPUT}" "// Generated from ${INPUT} by cmake/EmbedText.cmake: do not edit.\n"
                       "extern const char ${NAME}[];\n"
                       "const char ${NAME}[] = R\"limiter_embedded(${text})limiter_embedded\";\n")
