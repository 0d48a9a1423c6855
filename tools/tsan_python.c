/* The Python interpreter as a program linked with ThreadSanitizer's
 * runtime, for tools/run_tsan.sh (which builds and runs it). */
#include <Python.h>

int main(int argc, char **argv) { return Py_BytesMain(argc, argv); }
