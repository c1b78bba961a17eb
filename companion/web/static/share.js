// The end of a game as a picture to share: the companion draws it (/games/ID/summary.svg); the page turns it into a
// PNG, which every messaging app takes, and hands it to the phone's share sheet (Web Share with a file) where the
// browser can, or downloads it otherwise.
export async function summaryPng(gameId) {
  const image = new Image();
  image.src = `/games/${gameId}/summary.svg`;
  await image.decode();
  const scale = 2;  // sharp on a phone's screen
  const canvas = Object.assign(document.createElement("canvas"),
    { width: image.naturalWidth * scale, height: image.naturalHeight * scale });
  canvas.getContext("2d").drawImage(image, 0, 0, canvas.width, canvas.height);
  const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/png"));
  return new File([blob], `orrery-game-${gameId}.png`, { type: "image/png" });
}

// Share (or download) the summary; says what it did: "shared", "downloaded" or "cancelled".
export async function shareSummary(gameId, title) {
  const file = await summaryPng(gameId);
  if (navigator.canShare && navigator.canShare({ files: [file] })) {
    try {
      await navigator.share({ files: [file], title });
      return "shared";
    } catch (error) {
      if (error.name === "AbortError") return "cancelled";  // the player closed the share sheet
    }
  }
  const link = Object.assign(document.createElement("a"), { href: URL.createObjectURL(file), download: file.name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  return "downloaded";
}

// The standalone summary page (/games/ID): its Share button.
for (const button of document.querySelectorAll("button.share-summary")) {
  button.addEventListener("click", () => shareSummary(button.dataset.game, button.dataset.title));
}
