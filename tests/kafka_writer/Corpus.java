import java.io.File;
final class Corpus { static void main(File out, String[] args) throws Exception { } }
