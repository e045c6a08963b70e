import { getDocument, OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';

export interface ParsedPdf {
  pages: number;
  /** Each page's text, items joined, runs of white space made one space. */
  pageTexts: string[];
  /** All pages' text, one space apart. */
  text: string;
  /** Images painted on each page (embedded screenshots). */
  images: number[];
  /** The document's Title from its info dictionary. */
  title: string | undefined;
}

/**
 * Reads a PDF with Mozilla's PDF.js, independently of whatever wrote it: a file that is not
 * a well-formed PDF throws here. Tests assert on what a reader would see.
 */
export async function parsePdf(bytes: Uint8Array): Promise<ParsedPdf> {
  const task = getDocument({ data: new Uint8Array(bytes), useSystemFonts: false, verbosity: 0 });
  try {
    const doc = await task.promise;
    const pageTexts: string[] = [];
    const images: number[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      pageTexts.push(content.items.map((i) => ('str' in i ? i.str + (i.hasEOL ? ' ' : '') : '')).join('').replace(/\s+/g, ' ').trim());
      const ops = await page.getOperatorList();
      images.push(ops.fnArray.filter((f) => f === OPS.paintImageXObject || f === OPS.paintInlineImageXObject).length);
    }
    const info = (await doc.getMetadata()).info as { Title?: string };
    return { pages: doc.numPages, pageTexts, text: pageTexts.join(' '), images, title: info.Title };
  } finally {
    await task.destroy();
  }
}
