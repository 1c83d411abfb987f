/// <reference lib="dom" />
// Reading a QR code with the camera, for the two fields a person otherwise copies from another device: the invoice a
// submarine swap pays and the address a reverse swap pays to. The browser's own BarcodeDetector reads the video
// where it has one (Android, macOS, ChromeOS); elsewhere (desktop Linux, Firefox) jsqr does, fetched only when the
// user first scans, never with the page. The picture stays in the browser: frames are read here and dropped.

/** What a scanned text gives a field: the invoice or the address in it (a payment URI's scheme and options cut off). */
export function scannedValue(text: string, kind: 'invoice' | 'address'): string {
  let value = text.trim();
  const uri = /^(bitcoin|liquidnetwork|liquidtestnet|lightning):([^?]*)(?:\?(.*))?$/i.exec(value);
  if (uri) {
    const options = new URLSearchParams(uri[3] ?? '');
    // a unified payment URI (BIP21 with lightning=): the invoice is an option of the address
    value = kind === 'invoice' && options.has('lightning') ? options.get('lightning')! : uri[2];
  }
  // QR codes carry bech32 (invoices, segwit addresses) in upper case, where it packs tighter; base58 keeps its case
  return value === value.toUpperCase() ? value.toLowerCase() : value;
}

type Reader = (video: HTMLVideoElement) => Promise<string | undefined>;

interface BarcodeDetectorLike {
  detect(source: HTMLVideoElement): Promise<{ rawValue: string }[]>;
}
interface BarcodeDetectorClass {
  new (options: { formats: string[] }): BarcodeDetectorLike;
  getSupportedFormats(): Promise<string[]>;
}

/** The browser's QR reader if it has one, else jsqr on the video's frames drawn into a canvas. */
async function reader(): Promise<{ read: Reader; by: string }> {
  const Detector = (globalThis as { BarcodeDetector?: BarcodeDetectorClass }).BarcodeDetector;
  if (Detector && (await Detector.getSupportedFormats()).includes('qr_code')) {
    const detector = new Detector({ formats: ['qr_code'] });
    return { by: 'BarcodeDetector', read: async (video) => (await detector.detect(video))[0]?.rawValue };
  }
  // jsqr is CommonJS: bundled, its exports object is the default, whose .default is the function
  const imported = (await import('jsqr')).default as unknown as { default?: typeof import('jsqr').default };
  const jsQR = typeof imported === 'function' ? (imported as typeof import('jsqr').default) : imported.default!;
  const canvas = document.createElement('canvas');
  const context = canvas.getContext('2d', { willReadFrequently: true })!;
  return {
    by: 'jsqr',
    read: async (video) => {
      if (video.videoWidth === 0) return undefined;
      canvas.width = video.videoWidth;
      canvas.height = video.videoHeight;
      context.drawImage(video, 0, 0);
      const frame = context.getImageData(0, 0, canvas.width, canvas.height);
      return jsQR(frame.data, frame.width, frame.height, { inversionAttempts: 'dontInvert' })?.data || undefined;
    },
  };
}

/** The camera's view over the page while it scans, with a way out. */
function scanDialog(title: string): { dialog: HTMLDialogElement; video: HTMLVideoElement; status: HTMLParagraphElement; cancel: HTMLButtonElement } {
  const dialog = document.createElement('dialog');
  dialog.className = 'scan';
  dialog.setAttribute('aria-label', title);
  const video = document.createElement('video');
  video.muted = true;
  video.playsInline = true;
  video.setAttribute('aria-hidden', 'true');
  const status = document.createElement('p');
  status.setAttribute('aria-live', 'polite');
  status.textContent = 'Starting the camera…';
  const cancel = document.createElement('button');
  cancel.type = 'button';
  cancel.className = 'secondary';
  cancel.textContent = 'Cancel';
  dialog.append(video, status, cancel);
  document.body.append(dialog);
  return { dialog, video, status, cancel };
}

/**
 * A "Scan QR code" button after `fieldId`'s field: it reads a QR code with the camera into the field (as if typed:
 * an input event follows) and gives the focus back to it. `kind` says what to take from a payment URI.
 */
export function addScanButton(fieldId: string, kind: 'invoice' | 'address'): void {
  const field = document.getElementById(fieldId) as HTMLInputElement | HTMLTextAreaElement | null;
  if (field === null) throw new Error(`the page has no #${fieldId}`);
  const button = document.createElement('button');
  button.type = 'button';
  button.id = `${fieldId}-scan`;
  button.className = 'secondary small scan-button';
  button.textContent = 'Scan QR code';
  button.setAttribute('aria-label', `Scan QR code of the ${kind} with the camera`);
  field.after(button);
  button.addEventListener('click', () => void scanInto(field, kind, button));
}

async function scanInto(field: HTMLInputElement | HTMLTextAreaElement, kind: 'invoice' | 'address', button: HTMLButtonElement): Promise<void> {
  const error = document.getElementById(`${field.id}-error`);
  if (!navigator.mediaDevices?.getUserMedia) {
    if (error) error.textContent = 'This browser gives the page no camera (it needs https): paste the text instead.';
    return;
  }
  const { dialog, video, status, cancel } = scanDialog(kind === 'invoice' ? 'Scan the invoice' : 'Scan the address');
  let stream: MediaStream | undefined;
  let open = true;
  const close = () => {
    open = false;
    for (const track of stream?.getTracks() ?? []) track.stop();
    dialog.close();
    dialog.remove();
    button.focus();
  };
  cancel.addEventListener('click', close);
  dialog.addEventListener('cancel', close); // Escape
  dialog.showModal();
  try {
    const [camera, decoder] = await Promise.all([
      navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false }),
      reader(),
    ]);
    stream = camera;
    if (!open) return close();
    video.srcObject = stream;
    await video.play();
    status.textContent = `Hold the QR code in front of the camera.`;
    // one frame at a time, each read after the last: a slow phone reads fewer frames, never a queue of them
    while (open) {
      const text = await decoder.read(video);
      if (text !== undefined && open) {
        field.value = scannedValue(text, kind);
        field.dataset.scannedBy = decoder.by; // which reader read it: the browser's or jsqr
        field.dispatchEvent(new Event('input', { bubbles: true }));
        close();
        field.focus();
        return;
      }
      await new Promise((resolve) => requestAnimationFrame(resolve));
    }
  } catch (problem) {
    if (!open) return;
    close();
    const name = (problem as Error).name;
    if (error) {
      error.textContent =
        name === 'NotAllowedError' ? 'The camera was not allowed: paste the text instead.' : name === 'NotFoundError' ? 'No camera found: paste the text instead.' : `The camera could not be used (${(problem as Error).message}): paste the text instead.`;
    }
  }
}
