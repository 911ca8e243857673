// The main of the headers-alone programs (tests/device/meson.build): each of
// their other TUs includes one public header and nothing else, so linking
// them together also checks that no header defines anything that is not
// inline (a second TU including it would be a duplicate definition).
int main() { return 0; }
